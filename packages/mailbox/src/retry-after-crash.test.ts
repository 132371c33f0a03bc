import { randomUUID } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { acquireFileLock } from '@muster/file-lock';
import { makeTempDirectory, startNodeProcess } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import { createMailbox } from './mailbox.js';
import { inboxFile, writeTeamConfigV2 } from './test-fixtures/team.js';

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), 'test-fixtures');
const senderScript = path.join(fixtures, 'send-with-id.mjs');
const recipient = 'reader';

type Entry = { text: string; msg_id?: string; read: boolean };
const readInbox = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Entry[];

/** Starts a sender of `messageId` that stops at `step`, then SIGKILLs it there. */
async function killSenderAt(root: string, team: string, messageId: string, step: string) {
  const sender = startNodeProcess(senderScript, [
    root,
    team,
    recipient,
    messageId,
    'the original',
    step,
    path.join(root, 'never'),
  ]);
  await sender.waitForLine((line) => line === `paused ${step}`);
  sender.child.kill('SIGKILL');
  await sender.exited;
}

/**
 * What Claude Code 2.1.330 does on delivery, as a separate writer would: under the inbox
 * lock, rewrite the inbox without the delivered entries, by temp file + rename. It knows
 * nothing of muster's commit records.
 */
async function deliverByRemoval(root: string, team: string): Promise<Entry[]> {
  const inbox = inboxFile(root, team, recipient);
  const lock = await acquireFileLock(inbox, { root });
  try {
    const delivered = readInbox(inbox);
    const temporary = `${inbox}.tmp.0badc0de`;
    writeFileSync(temporary, '[]');
    renameSync(temporary, inbox);
    return delivered;
  } finally {
    await lock.release();
  }
}

describe('a send retried with the same messageId after a crash is never delivered twice', () => {
  for (const kind of ['muster', 'claude-code'] as const) {
    it(`${kind} team: killed after the rename, retried: one entry`, async () => {
      const root = await makeTempDirectory('muster-mailbox-retry-');
      const team = `retry-${kind}`;
      writeTeamConfigV2(root, team, [recipient], kind);
      const messageId = randomUUID();
      await killSenderAt(root, team, messageId, 'renamed');

      const mailbox = createMailbox({ root, team });
      const receipt = await mailbox.send(
        recipient,
        { from: 'sender', text: 'the retry' },
        { messageId },
      );
      expect(receipt.messageId).toBe(messageId);
      const entries = readInbox(inboxFile(root, team, recipient));
      expect(entries.map((entry) => [entry.msg_id, entry.text])).toEqual([
        [messageId, 'the original'],
      ]);
    });
  }

  it('killed after the rename, delivered by removal (2.1.330) before the retry: not again', async () => {
    const root = await makeTempDirectory('muster-mailbox-retry-');
    const team = 'retry-removed';
    writeTeamConfigV2(root, team, [recipient], 'claude-code');
    const messageId = randomUUID();
    await killSenderAt(root, team, messageId, 'renamed');
    // The reader delivers it and deletes it, before any muster process looks again: the
    // sender's commit record is still there and the inbox has a new identity.
    const delivered = await deliverByRemoval(root, team);
    expect(delivered.map((entry) => entry.msg_id)).toEqual([messageId]);

    const mailbox = createMailbox({ root, team });
    await mailbox.send(recipient, { from: 'sender', text: 'the retry' }, { messageId });
    await mailbox.send(recipient, { from: 'sender', text: 'something new' });
    const texts = readInbox(inboxFile(root, team, recipient)).map((entry) => entry.text);
    expect(texts).toEqual(['something new']);
  });

  it('killed before the rename, retried: delivered once (not lost)', async () => {
    const root = await makeTempDirectory('muster-mailbox-retry-');
    const team = 'retry-lost';
    writeTeamConfigV2(root, team, [recipient], 'claude-code');
    const messageId = randomUUID();
    await killSenderAt(root, team, messageId, 'temporary-written');

    const mailbox = createMailbox({ root, team });
    await mailbox.send(recipient, { from: 'sender', text: 'the retry' }, { messageId });
    const entries = readInbox(inboxFile(root, team, recipient));
    expect(entries.map((entry) => [entry.msg_id, entry.text])).toEqual([[messageId, 'the retry']]);
  });
});
