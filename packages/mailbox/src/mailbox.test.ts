import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { acquireFileLock } from '@muster/file-lock';
import { makeTempDirectory } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import { createMailbox, type Mailbox } from './mailbox.js';
import { MailboxError } from './mailbox-error.js';
import { inboxFile, writeTeamConfig } from './test-fixtures/team.js';

const team = 'crew';

async function setUp(options: { retention?: { keepRead: number } } = {}) {
  const root = await makeTempDirectory('muster-mailbox-');
  writeTeamConfig(root, team, ['alpha', 'beta', 'gamma']);
  const mailbox = createMailbox({ root, team, ...options });
  return { root, mailbox };
}

async function captureError(action: () => Promise<unknown>): Promise<MailboxError> {
  try {
    await action();
  } catch (error) {
    expect(error).toBeInstanceOf(MailboxError);
    return error as MailboxError;
  }
  throw new Error('expected the action to fail');
}

const texts = async (mailbox: Mailbox, agent: string) =>
  (await mailbox.readAll(agent)).map((message) => message.text);

describe('sending and reading', () => {
  it('writes an inbox exactly as Claude Code does and reads it back', async () => {
    const { root, mailbox } = await setUp();
    const receipt = await mailbox.send('alpha', {
      from: 'beta',
      text: 'Started task 1.',
      summary: 'Beta started',
      timestamp: '2026-11-22T12:35:59.306Z',
    });
    expect(receipt.message).toEqual({
      from: 'beta',
      text: 'Started task 1.',
      summary: 'Beta started',
      timestamp: '2026-11-22T12:35:59.306Z',
      color: 'green',
      read: false,
    });
    expect(readFileSync(inboxFile(root, team, 'alpha'), 'utf8')).toBe(
      JSON.stringify([receipt.message], null, 2),
    );
    await mailbox.send('alpha@crew', { from: 'team-lead', text: 'second' });
    const all = await mailbox.readAll('alpha');
    expect(all.map((message) => message.text)).toEqual(['Started task 1.', 'second']);
    expect(all[1]).not.toHaveProperty('color');
  });

  it('reads a missing inbox as empty and creates nothing while reading, marking or clearing', async () => {
    const { root, mailbox } = await setUp();
    expect(await mailbox.readAll('gamma')).toEqual([]);
    expect(await mailbox.readUnread('gamma')).toEqual([]);
    await mailbox.markRead('gamma', 'all');
    expect(await mailbox.clear('gamma', { force: true })).toEqual({ cleared: 0, existed: false });
    expect(existsSync(path.join(root, 'teams', team, 'inboxes'))).toBe(false);
    expect(existsSync(path.join(root, 'teams', team, '.muster'))).toBe(false);
  });

  it('refuses an unknown recipient, naming the members and the closest name', async () => {
    const { root, mailbox } = await setUp();
    const error = await captureError(() => mailbox.send('alpah', { from: 'beta', text: 'hi' }));
    expect(error.code).toBe('UNKNOWN_RECIPIENT');
    expect(error.message).toContain('team-lead, alpha, beta, gamma');
    expect(error.message).toContain('Did you mean "alpha"?');
    expect(error.details).toMatchObject({ suggestion: 'alpha' });
    expect(existsSync(inboxFile(root, team, 'alpah'))).toBe(false);
    await mailbox.send('alpah', { from: 'beta', text: 'hi' }, { allowUnknownRecipient: true });
    expect(await texts(mailbox, 'alpah')).toEqual(['hi']);
    const unchecked = createMailbox({ root, team: 'no-such-team', recipientCheck: 'none' });
    await unchecked.send('anyone', { from: 'x', text: 'ok' });
    expect(await texts(unchecked, 'anyone')).toEqual(['ok']);
    const checked = createMailbox({ root, team: 'no-such-team' });
    expect((await captureError(() => checked.send('anyone', { from: 'x', text: 'no' }))).code).toBe(
      'UNKNOWN_TEAM',
    );
  });

  it('broadcasts to every member but the sender, lead included, with the sender color', async () => {
    const { mailbox } = await setUp();
    const receipt = await mailbox.broadcast('beta', { text: 'all hands', summary: 'hands' });
    expect(receipt.recipients).toEqual(['team-lead', 'alpha', 'gamma']);
    for (const agent of ['team-lead', 'alpha', 'gamma']) {
      expect(await mailbox.readAll(agent)).toEqual([receipt.message]);
    }
    expect(receipt.message).toMatchObject({ from: 'beta', color: 'green', summary: 'hands' });
    expect(await mailbox.readAll('beta')).toEqual([]);
  });

  it('sends protocol messages typed, without summary, and plan requests without color', async () => {
    const { mailbox } = await setUp();
    await mailbox.sendProtocolMessage('team-lead', 'alpha', {
      type: 'idle_notification',
      from: 'alpha',
      timestamp: '2026-11-22T12:36:00.000Z',
      idleReason: 'available',
    });
    await mailbox.sendProtocolMessage('team-lead', 'beta', {
      type: 'plan_approval_request',
      from: 'beta',
      timestamp: '2026-11-22T12:36:01.000Z',
      planFilePath: '/tmp/plan.md',
      planContent: '1. do it',
      requestId: 'plan_approval-1@beta@crew',
    });
    const [idle, plan] = await mailbox.readAll('team-lead');
    expect(idle).toMatchObject({
      from: 'alpha',
      color: 'blue',
      timestamp: '2026-11-22T12:36:00.000Z',
    });
    expect(idle).not.toHaveProperty('summary');
    expect(plan).not.toHaveProperty('color');
    const unread = await mailbox.readUnread('team-lead');
    expect(unread.map((item) => item.content.kind)).toEqual(['protocol', 'protocol']);
    const invalid = await captureError(() =>
      mailbox.sendProtocolMessage('team-lead', 'alpha', {
        type: 'shutdown_request',
      } as never),
    );
    expect(invalid.code).toBe('INVALID_MESSAGE');
  });
});

describe('marking, clearing and compaction', () => {
  it('marks all, by index, by delivered message and by predicate, in place', async () => {
    const { root, mailbox } = await setUp();
    for (const text of ['one', 'two', 'three', 'four', 'five']) {
      await mailbox.send('alpha', { from: 'beta', text });
    }
    await mailbox.markRead('alpha', [1]);
    const unread = await mailbox.readUnread('alpha');
    await mailbox.markRead(
      'alpha',
      unread.filter((item) => item.message.text === 'four'),
    );
    await mailbox.markRead('alpha', (message) => message.text.startsWith('th'));
    const reads = (await mailbox.readAll('alpha')).map((message) => [message.text, message.read]);
    expect(reads).toEqual([
      ['one', false],
      ['two', true],
      ['three', true],
      ['four', true],
      ['five', false],
    ]);
    await mailbox.markRead('alpha', 'all');
    expect(await mailbox.readUnread('alpha')).toEqual([]);
    expect((await captureError(() => mailbox.markRead('alpha', [-1]))).code).toBe(
      'INVALID_SELECTION',
    );
    expect(existsSync(inboxFile(root, team, 'alpha.archive'))).toBe(false);
  });

  it('never compacts or clears an inbox no muster agent claimed', async () => {
    const { root, mailbox } = await setUp({ retention: { keepRead: 1 } });
    for (let index = 0; index < 6; index += 1) {
      await mailbox.send('alpha', { from: 'beta', text: `m${index}` });
    }
    await mailbox.markRead('alpha', 'all');
    expect(await mailbox.readAll('alpha')).toHaveLength(6);
    expect((await captureError(() => mailbox.compact('alpha'))).code).toBe('NOT_CLAIMED');
    const refused = await captureError(() => mailbox.clear('alpha'));
    expect(refused.code).toBe('NOT_CLAIMED');
    expect(refused.message).toContain('force');
    expect(existsSync(path.join(root, 'teams', team, 'inboxes', 'alpha.archive.jsonl'))).toBe(
      false,
    );
  });

  it('archives old read messages of a claimed inbox and clears into the archive', async () => {
    const { root, mailbox } = await setUp({ retention: { keepRead: 2 } });
    await mailbox.claimInbox('alpha');
    for (let index = 0; index < 8; index += 1) {
      await mailbox.send('alpha', { from: 'beta', text: `m${index}` });
    }
    await mailbox.markRead('alpha', (message) => message.text !== 'm6');
    expect(await texts(mailbox, 'alpha')).toEqual(['m5', 'm6', 'm7']);
    const archive = path.join(root, 'teams', team, 'inboxes', 'alpha.archive.jsonl');
    const archivedTexts = () =>
      readFileSync(archive, 'utf8')
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { text: string }).text);
    expect(archivedTexts()).toEqual(['m0', 'm1', 'm2', 'm3', 'm4']);
    expect(await mailbox.compact('alpha', { keepRead: 0 })).toEqual({ archived: 2, remaining: 1 });
    expect(await mailbox.clear('alpha')).toEqual({ cleared: 1, existed: true });
    expect(await mailbox.readAll('alpha')).toEqual([]);
    expect(readFileSync(inboxFile(root, team, 'alpha'), 'utf8')).toBe('[]');
    expect(archivedTexts()).toEqual(['m0', 'm1', 'm2', 'm3', 'm4', 'm5', 'm7', 'm6']);
  });
});

describe('watch', () => {
  it('delivers each message once, in priority order, and marks them read as it goes', async () => {
    const { mailbox } = await setUp();
    await mailbox.send('alpha', { from: 'beta', text: 'peer first' });
    await mailbox.send('alpha', { from: 'team-lead', text: 'lead second' });
    const controller = new AbortController();
    const seen: string[] = [];
    const watching = (async () => {
      for await (const item of mailbox.watch('alpha', {
        signal: controller.signal,
        markRead: true,
        pollIntervalMs: 100,
      })) {
        seen.push(item.message.text);
        if (seen.length === 2) {
          await mailbox.sendProtocolMessage('alpha', 'team-lead', {
            type: 'shutdown_request',
            requestId: 'shutdown-1@alpha',
            from: 'team-lead',
            reason: 'done',
            timestamp: new Date().toISOString(),
          });
          await mailbox.send('alpha', { from: 'gamma', text: 'late peer' });
        }
        if (seen.length === 4) break;
      }
    })();
    await watching;
    controller.abort();
    expect(seen[0]).toBe('lead second');
    expect(seen[1]).toBe('peer first');
    expect(seen[2]).toContain('shutdown_request');
    expect(seen[3]).toBe('late peer');
    expect(await mailbox.readUnread('alpha')).toEqual([]);
  });

  it('without markRead leaves messages unread but still yields each only once', async () => {
    const { mailbox } = await setUp();
    const controller = new AbortController();
    const seen: string[] = [];
    const watching = (async () => {
      for await (const item of mailbox.watch('beta', {
        signal: controller.signal,
        pollIntervalMs: 50,
      })) {
        seen.push(item.message.text);
      }
    })();
    await mailbox.send('beta', { from: 'alpha', text: 'one' });
    await mailbox.send('beta', { from: 'alpha', text: 'two' });
    while (seen.length < 2) await new Promise((resolve) => setTimeout(resolve, 20));
    await new Promise((resolve) => setTimeout(resolve, 200));
    controller.abort();
    await watching;
    expect(seen).toEqual(['one', 'two']);
    expect((await mailbox.readUnread('beta')).map((item) => item.message.text)).toEqual([
      'one',
      'two',
    ]);
  });
});

describe('failures are reported, never silent', () => {
  it('quarantines a corrupt inbox, reports where its messages are, and starts fresh after', async () => {
    const { root, mailbox } = await setUp();
    await mailbox.send('alpha', { from: 'beta', text: 'before' });
    const inbox = inboxFile(root, team, 'alpha');
    const torn = readFileSync(inbox, 'utf8').slice(0, 40);
    writeFileSync(inbox, torn);
    const error = await captureError(() => mailbox.send('alpha', { from: 'beta', text: 'lost?' }));
    expect(error.code).toBe('CORRUPT_FILE');
    const quarantinedTo = error.details.quarantinedTo as string;
    expect(error.message).toContain(quarantinedTo);
    expect(error.message).toContain('NOT delivered');
    expect(readFileSync(quarantinedTo, 'utf8')).toBe(torn);
    await mailbox.send('alpha', { from: 'beta', text: 'after' });
    expect(await texts(mailbox, 'alpha')).toEqual(['after']);
    expect(readFileSync(quarantinedTo, 'utf8')).toBe(torn);
    writeFileSync(inbox, '{"not": "an inbox"}');
    expect((await captureError(() => mailbox.readAll('alpha'))).code).toBe('CORRUPT_FILE');
    expect(
      readdirSync(path.dirname(inbox)).filter((name) => name.includes('.corrupt-')),
    ).toHaveLength(2);
  });

  it('times out on a lock held by a live process and then has NOT delivered the message', async () => {
    const { root } = await setUp();
    const mailbox = createMailbox({ root, team, lock: { deadlineMs: 300 } });
    await mailbox.send('alpha', { from: 'beta', text: 'first' });
    const held = await acquireFileLock(inboxFile(root, team, 'alpha'));
    let error: MailboxError;
    try {
      error = await captureError(() => mailbox.send('alpha', { from: 'beta', text: 'blocked' }));
    } finally {
      await held.release();
    }
    expect(error.code).toBe('LOCK_TIMEOUT');
    expect(error.details).toMatchObject({ queued: false });
    expect(error.message).toContain('NOT delivered');
    await mailbox.send('alpha', { from: 'beta', text: 'third' });
    expect(await texts(mailbox, 'alpha')).toEqual(['first', 'third']);
  });

  it('rejects a queued file that does not parse (leaving young ones alone) and delivers the rest', async () => {
    const { root, mailbox } = await setUp();
    await mailbox.send('alpha', { from: 'beta', text: 'first' });
    const sidecar = path.join(root, 'teams', team, '.muster', 'mailbox', 'alpha');
    const old = `${String(Date.now() - 60_000).padStart(15, '0')}-1-000000001-0000abcd.json`;
    const young = `${String(Date.now()).padStart(15, '0')}-1-000000002-0000abcd.json`;
    writeFileSync(path.join(sidecar, 'spool', old), '[{"from": "x", "te');
    writeFileSync(path.join(sidecar, 'spool', young), '[{"from": "y"');
    await mailbox.send('alpha', { from: 'beta', text: 'second' });
    expect(await texts(mailbox, 'alpha')).toEqual(['first', 'second']);
    expect(readdirSync(path.join(sidecar, 'rejected'))).toEqual([old]);
    expect(readdirSync(path.join(sidecar, 'spool'))).toEqual([young]);
  });
});
