import { cpSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseProtocolMessage, type InboxMessage } from '@muster/protocol';
import { claudeCodeReferenceDirectory, makeTempDirectory } from '@muster/test-utils';
import lockfile from 'proper-lockfile';
import { describe, expect, it } from 'vitest';
import { createMailbox } from './mailbox.js';

// The files Claude Code 2.1.45 wrote, kept in the repository (fixtures/claude-code-2.1.45).
const reference = claudeCodeReferenceDirectory();

function referenceFolder(state: string): string {
  return path.join(reference, state);
}

/** A temp root holding a copy of one reference state's `teams` folder. */
async function copyOfState(state: string): Promise<string> {
  const root = await makeTempDirectory('muster-mailbox-reference-');
  cpSync(path.join(referenceFolder(state), 'teams'), path.join(root, 'teams'), { recursive: true });
  return root;
}

const inboxesOf = (root: string) => path.join(root, 'teams', 'conf-team', 'inboxes');
const readText = (file: string) => readFileSync(file, 'utf8');

describe('Claude Code 2.1.45 compatibility', () => {
  it('writes the reference inboxes byte for byte from the same messages', async () => {
    const state = referenceFolder('11-all-shutdowns-approved');
    const root = await makeTempDirectory('muster-mailbox-rewrite-');
    cpSync(
      path.join(state, 'teams', 'conf-team', 'config.json'),
      path.join(root, 'teams', 'conf-team', 'config.json'),
    );
    const mailbox = createMailbox({ root, team: 'conf-team' });
    const names = readdirSync(inboxesOf(state)).filter((name) => name.endsWith('.json'));
    expect(names.sort()).toEqual(['alpha.json', 'beta.json', 'gamma.json', 'team-lead.json']);
    for (const name of names) {
      const agent = name.slice(0, -'.json'.length);
      const expected = readText(path.join(inboxesOf(state), name));
      const entries = JSON.parse(expected) as InboxMessage[];
      for (const entry of entries) {
        const protocol = parseProtocolMessage(entry.text);
        if (protocol !== undefined) {
          await mailbox.sendProtocolMessage(agent, entry.from, protocol, {
            timestamp: entry.timestamp,
          });
        } else {
          await mailbox.send(agent, {
            from: entry.from,
            text: entry.text,
            timestamp: entry.timestamp,
            ...(entry.summary !== undefined ? { summary: entry.summary } : {}),
          });
        }
      }
      await mailbox.markRead(agent, (message, index) => entries[index]!.read);
      expect(readText(path.join(inboxesOf(root), name))).toBe(expected);
    }
  });

  it('reads the reference inboxes, marks by index and appends without disturbing them', async () => {
    const root = await copyOfState('11-all-shutdowns-approved');
    const mailbox = createMailbox({ root, team: 'conf-team' });
    const leadInbox = path.join(inboxesOf(root), 'team-lead.json');
    const original = readText(leadInbox);
    const entries = JSON.parse(original) as InboxMessage[];
    expect(await mailbox.readAll('team-lead')).toEqual(entries);

    const unread = await mailbox.readUnread('team-lead');
    expect(unread).toHaveLength(entries.length);
    expect(unread.map((item) => item.index)).toEqual(entries.map((_, index) => index));
    expect(unread.filter((item) => item.content.kind === 'protocol')).toHaveLength(20);

    await mailbox.markRead('team-lead', [0, 5]);
    const marked = entries.map((entry, index) =>
      index === 0 || index === 5 ? { ...entry, read: true } : entry,
    );
    expect(readText(leadInbox)).toBe(JSON.stringify(marked, null, 2));

    const before = readText(leadInbox);
    const receipt = await mailbox.send('team-lead', {
      from: 'gamma',
      text: 'one more',
      summary: 'More',
      timestamp: '2026-11-22T12:40:00.000Z',
    });
    const after = readText(leadInbox);
    expect(after.startsWith(before.slice(0, -2))).toBe(true);
    expect(after).toBe(JSON.stringify([...marked, receipt.message], null, 2));
    expect(receipt.message).toEqual({
      from: 'gamma',
      text: 'one more',
      summary: 'More',
      timestamp: '2026-11-22T12:40:00.000Z',
      color: 'yellow',
      read: false,
    });
  });

  it("delivers a teammate's unread reference entry typed, then marks it read in place", async () => {
    const root = await copyOfState('06-all-teammates-spawned');
    const mailbox = createMailbox({ root, team: 'conf-team' });
    const inbox = path.join(inboxesOf(root), 'alpha.json');
    const original = JSON.parse(readText(inbox)) as InboxMessage[];
    const controller = new AbortController();
    for await (const item of mailbox.watch('alpha', {
      signal: controller.signal,
      markRead: true,
    })) {
      expect(item.index).toBe(0);
      expect(item.content).toMatchObject({
        kind: 'protocol',
        message: { type: 'task_assignment', taskId: '1' },
      });
      break;
    }
    controller.abort();
    expect(readText(inbox)).toBe(JSON.stringify([{ ...original[0], read: true }], null, 2));
    // A muster agent never claimed it, so nothing may have been moved to an archive.
    expect(readdirSync(inboxesOf(root)).sort()).toEqual(['alpha.json']);
  });

  it("excludes and waits for Claude Code's own lock (proper-lockfile, no owner record)", async () => {
    const root = await copyOfState('11-all-shutdowns-approved');
    const mailbox = createMailbox({ root, team: 'conf-team', lock: { deadlineMs: 20_000 } });
    const inbox = path.join(inboxesOf(root), 'beta.json');
    // Claude Code takes the lock synchronously, without retries, exactly like this.
    const release = lockfile.lockSync(inbox, { lockfilePath: `${inbox}.lock` });
    let sent = false;
    const sending = mailbox.send('beta', { from: 'alpha', text: 'while locked' }).then(() => {
      sent = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(sent).toBe(false);
    expect((await mailbox.readAll('beta')).map((message) => message.text)).not.toContain(
      'while locked',
    );
    release();
    await sending;
    expect((await mailbox.readAll('beta')).at(-1)?.text).toBe('while locked');

    // And while muster holds it, Claude Code's attempt fails (and it would drop its write).
    const { acquireFileLock } = await import('@muster/file-lock');
    const held = await acquireFileLock(inbox);
    try {
      expect(() => lockfile.lockSync(inbox, { lockfilePath: `${inbox}.lock` })).toThrow(
        /already being held/,
      );
    } finally {
      await held.release();
    }
  });
});
