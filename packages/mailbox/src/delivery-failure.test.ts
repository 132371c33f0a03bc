import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { acquireFileLock } from '@muster/file-lock';
import { makeTempDirectory } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import { MailboxError } from './mailbox-error.js';
import { createMailbox } from './mailbox.js';
import { inboxFile } from './test-fixtures/team.js';

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), 'test-fixtures');
const team = 'failures';
const recipient = 'reader';

/** Every text in the inbox, after giving leftovers a chance to be committed by a reader. */
async function textsAfterSettling(root: string): Promise<string[]> {
  const mailbox = createMailbox({
    root,
    team,
    recipientCheck: 'none',
    lock: { deadlineMs: 5_000 },
  });
  await new Promise((resolve) => setTimeout(resolve, 400));
  await mailbox.readAll(recipient); // A reader commits queued files older than 250 ms.
  await mailbox.send(recipient, { from: 'later', text: 'later' }); // So does the next send.
  return (await mailbox.readAll(recipient)).map((message) => message.text);
}

describe('a send that reports failure is never delivered later', () => {
  it('a plain file where the lock folder should be: NOT delivered, and it stays so', async () => {
    const root = await makeTempDirectory('muster-mailbox-lock-file-');
    const inbox = inboxFile(root, team, recipient);
    mkdirSync(path.dirname(inbox), { recursive: true });
    writeFileSync(`${inbox}.lock`, 'not a lock folder');
    const mailbox = createMailbox({
      root,
      team,
      recipientCheck: 'none',
      lock: { deadlineMs: 1_500 },
    });
    const error = await mailbox.send(recipient, { from: 'sender', text: 'failed' }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(MailboxError);
    expect((error as MailboxError).details.delivered).toBe(false);
    expect((error as MailboxError).message).toContain('NOT delivered');

    rmSync(`${inbox}.lock`);
    expect(await textsAfterSettling(root)).toEqual(['later']);
  });

  it('a write error while queued (file size limit, like a full disk): NOT delivered, never later', async () => {
    const root = await makeTempDirectory('muster-mailbox-write-error-');
    const inbox = inboxFile(root, team, recipient);
    mkdirSync(path.dirname(inbox), { recursive: true });
    // An inbox larger than the sender's file size limit: its rewrite fails with EFBIG.
    const history = Array.from({ length: 8 }, (_, index) => ({
      from: 'old',
      text: `${index}`.padEnd(1_000, '.'),
      timestamp: '2026-01-01T00:00:00.000Z',
      read: true,
    }));
    writeFileSync(inbox, JSON.stringify(history, null, 2));
    // Hold the lock so that the sender queues its message first, then let it commit.
    const blocker = await acquireFileLock(inbox);
    const child = spawn(
      'bash',
      [
        '-c',
        'ulimit -f 4 && exec "$0" "$@"',
        process.execPath,
        path.join(fixtures, 'send-once.mjs'),
        root,
        team,
        recipient,
        'failed',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise((resolve) => child.on('close', resolve));
    const spool = path.join(root, 'teams', team, '.muster', 'mailbox', recipient, 'spool');
    const queued = () =>
      existsSync(spool) ? readdirSync(spool).filter((name) => name.endsWith('.json')) : [];
    while (queued().length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    await blocker.release();
    await exited;
    expect(stdout, stderr).toContain('error IO_ERROR false');
    expect(stderr).toContain('NOT delivered');

    const texts = await textsAfterSettling(root);
    expect(texts).not.toContain('failed');
    expect(texts.at(-1)).toBe('later');
  });
});
