import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { makeTempDirectory } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import { createMailbox } from './mailbox.js';
import { inboxFile } from './test-fixtures/team.js';

const team = 'invalid';
const recipient = 'reader';
const message = (text: string) => ({
  from: 'team-lead',
  text,
  timestamp: '2026-01-01T00:00:00.000Z',
  read: false,
});
// Each fails the schema in a different way: no timestamp, a number as text, not an object.
const badEntries = [
  { from: 'someone', text: 'no timestamp', read: false },
  { ...message('x'), text: 42 },
  null,
];

describe('an inbox with entries that do not match the schema', () => {
  it('is kept; the bad entries are reported and skipped, never dropped; the rest is delivered', async () => {
    const root = await makeTempDirectory('muster-mailbox-invalid-');
    const inbox = inboxFile(root, team, recipient);
    mkdirSync(path.dirname(inbox), { recursive: true });
    const entries = [
      message('one'),
      badEntries[0],
      message('two'),
      badEntries[1],
      message('three'),
      badEntries[2],
    ];
    writeFileSync(inbox, JSON.stringify(entries, null, 2));
    const mailbox = createMailbox({ root, team, recipientCheck: 'none' });

    expect((await mailbox.readUnread(recipient)).map((item) => item.message.text)).toEqual([
      'one',
      'two',
      'three',
    ]);
    expect((await mailbox.inboxProblems(recipient)).map((problem) => problem.index)).toEqual([
      1, 3, 5,
    ]);
    expect((await mailbox.readAll(recipient)).map((entry) => entry.text)).toEqual([
      'one',
      'two',
      'three',
    ]);

    // A send appends; nothing is quarantined and the bad entries stay where they were.
    await mailbox.send(recipient, { from: 'peer', text: 'four' });
    expect(readdirSync(path.dirname(inbox)).filter((name) => name.includes('corrupt'))).toEqual([]);
    const afterSend = JSON.parse(readFileSync(inbox, 'utf8')) as unknown[];
    expect(afterSend.slice(0, 6)).toEqual(entries);
    expect((afterSend[6] as { text: string }).text).toBe('four');

    // watch delivers the valid unread messages; marking all read leaves the bad ones as they are.
    const controller = new AbortController();
    const seen: string[] = [];
    for await (const item of mailbox.watch(recipient, {
      signal: controller.signal,
      markRead: true,
    })) {
      seen.push(item.message.text);
      if (seen.length === 4) break;
    }
    expect(seen.sort()).toEqual(['four', 'one', 'three', 'two']);
    await mailbox.markRead(recipient, 'all');
    const afterMark = JSON.parse(readFileSync(inbox, 'utf8')) as unknown[];
    expect([afterMark[1], afterMark[3], afterMark[5]]).toEqual(badEntries);
    expect(await mailbox.readUnread(recipient)).toEqual([]);

    // Compaction of a claimed inbox moves read messages, never the bad entries.
    await mailbox.claimInbox(recipient);
    await mailbox.compact(recipient, { keepRead: 0 });
    expect(JSON.parse(readFileSync(inbox, 'utf8'))).toEqual(badEntries);
  });
});
