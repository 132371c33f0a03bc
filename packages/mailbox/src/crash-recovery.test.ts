import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { acquireFileLock } from '@muster/file-lock';
import {
  makeTempDirectory,
  runNodeProcesses,
  startNodeProcess,
  type StartedProcess,
} from '@muster/test-utils';
import lockfile from 'proper-lockfile';
import { describe, expect, it } from 'vitest';
import { createMailbox } from './mailbox.js';
import { inboxFile, storedTextCounts } from './test-fixtures/team.js';

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), 'test-fixtures');
const writerScript = path.join(fixtures, 'writer.mjs');
const holderScript = path.join(fixtures, 'hold-at-step.mjs');
const team = 'crash';
const recipient = 'reader';

const sidecar = (root: string) => path.join(root, 'teams', team, '.muster', 'mailbox', recipient);
const acknowledgedTexts = (stdout: string) =>
  stdout
    .split('\n')
    .filter((line) => line.startsWith('ack '))
    .map((line) => line.slice(4));

/** Every acknowledged text is stored exactly once, nothing is stored twice, and it parses. */
function expectExactlyOnce(root: string, acknowledged: string[]) {
  const inbox = readFileSync(inboxFile(root, team, recipient), 'utf8');
  expect(() => JSON.parse(inbox)).not.toThrow();
  const stored = storedTextCounts(root, team, recipient);
  expect([...stored].filter(([, count]) => count !== 1)).toEqual([]);
  expect(acknowledged.filter((text) => !stored.has(text))).toEqual([]);
  return stored;
}

/**
 * Starts a holder that sends `texts` and pauses at `step`. For `when = 'claimed'` the test
 * holds the lock until all of them are queued, so that one commit claims them together.
 */
async function startHolder(
  root: string,
  step: string,
  when: 'direct' | 'claimed',
  texts: string[],
  staleMs: number,
): Promise<{ holder: StartedProcess; goFile: string }> {
  const goFile = path.join(root, `go-${step}`);
  const inbox = inboxFile(root, team, recipient);
  mkdirSync(path.dirname(inbox), { recursive: true });
  const blocker = when === 'claimed' ? await acquireFileLock(inbox) : undefined;
  const holder = startNodeProcess(holderScript, [
    root,
    team,
    recipient,
    step,
    when,
    goFile,
    String(staleMs),
    ...texts,
  ]);
  if (blocker !== undefined) {
    const spool = path.join(sidecar(root), 'spool');
    const queued = () =>
      existsSync(spool) ? readdirSync(spool).filter((name) => name.endsWith('.json')).length : 0;
    while (queued() < texts.length) await new Promise((resolve) => setTimeout(resolve, 10));
    await blocker.release();
  }
  await holder.waitForLine((line) => line.startsWith(`paused ${step}`));
  return { holder, goFile };
}

describe('crashes and pauses never lose an acknowledged message', () => {
  it('a writer SIGKILLed while holding the lock: the others take over (dead holder, not stale)', async () => {
    const root = await makeTempDirectory('muster-mailbox-kill-');
    // staleMs 60 s: if the lock were only recovered by age, the writers (30 s deadline) fail.
    const { holder } = await startHolder(root, 'temporary-written', 'direct', ['held'], 60_000);
    const writers = Array.from({ length: 4 }, (_, index) =>
      startNodeProcess(writerScript, [root, team, recipient, `w${index}`, '15', '60000']),
    );
    await Promise.all(writers.map((writer) => writer.waitForLine((line) => line === 'ready')));
    holder.child.kill('SIGKILL');
    const killedAt = Date.now();
    const firstAck = await writers[0]!.waitForLine((line) => line.startsWith('ack '));
    const results = await Promise.all(writers.map((writer) => writer.exited));
    expect(results.map((result) => result.code)).toEqual([0, 0, 0, 0]);
    console.log(
      `first send after the kill resolved ${Date.now() - killedAt} ms later (${firstAck})`,
    );
    const acknowledged = results.flatMap((result) => acknowledgedTexts(result.stdout));
    expect(acknowledged).toHaveLength(60);
    const stored = expectExactlyOnce(root, acknowledged);
    // The killed send never reached its rename, and was never acknowledged.
    expect(stored.has('held')).toBe(false);
    expect(stored.size).toBe(60);
  });

  it.each(['claimed', 'record-written', 'renamed'])(
    'a committer SIGKILLed at %s: its batch is delivered exactly once by the next commit',
    async (step) => {
      const root = await makeTempDirectory('muster-mailbox-commit-kill-');
      const batch = ['batch-1', 'batch-2', 'batch-3'];
      const { holder } = await startHolder(root, step, 'claimed', batch, 60_000);
      holder.child.kill('SIGKILL');
      await holder.exited;
      const [after] = await runNodeProcesses(writerScript, 1, () => [
        root,
        team,
        recipient,
        'after',
        '1',
        '60000',
      ]);
      const stored = expectExactlyOnce(root, acknowledgedTexts(after!.stdout));
      // Never acknowledged (the holder died), yet queued: they arrive, each exactly once.
      for (const text of batch) expect(stored.get(text)).toBe(1);
      expect(readdirSync(path.join(sidecar(root), 'claimed'))).toEqual([]);
      expect(existsSync(path.join(sidecar(root), 'commit.json'))).toBe(false);
    },
  );

  it('writers killed at random moments leave a parseable inbox and lose nothing acknowledged', async () => {
    const root = await makeTempDirectory('muster-mailbox-random-kill-');
    const reader = createMailbox({ root, team, recipientCheck: 'none' });
    const writers = Array.from({ length: 6 }, (_, index) =>
      startNodeProcess(writerScript, [root, team, recipient, `w${index}`, '60', '60000']),
    );
    await Promise.all(
      writers
        .slice(0, 3)
        .map((writer, index) =>
          writer.waitForLine((line) => line === `ack w${index}-${5 + 7 * index}`),
        ),
    );
    for (const writer of writers.slice(0, 3)) writer.child.kill('SIGKILL');
    const results = await Promise.all(writers.map((writer) => writer.exited));
    expect(results.slice(3).map((result) => result.code)).toEqual([0, 0, 0]);
    expect(results.slice(0, 3).map((result) => result.signal)).toEqual([
      'SIGKILL',
      'SIGKILL',
      'SIGKILL',
    ]);
    const acknowledged = results.flatMap((result) => acknowledgedTexts(result.stdout));
    // A reader commits whatever the killed writers queued but did not see acknowledged.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await reader.readAll(recipient)).length).toBeGreaterThanOrEqual(acknowledged.length);
    expectExactlyOnce(root, acknowledged);
  });

  it.each([
    ['temporary-written', 'direct'],
    ['record-written', 'claimed'],
  ] as const)(
    'a holder SIGSTOPped at %s, its lock taken by Claude Code meanwhile, then resumed, overwrites nothing',
    async (step, when) => {
      const root = await makeTempDirectory('muster-mailbox-stop-');
      const held = when === 'direct' ? ['held'] : ['held-1', 'held-2', 'held-3'];
      const { holder, goFile } = await startHolder(root, step, when, held, 1_000);
      holder.child.kill('SIGSTOP');
      let resumed = false;
      try {
        // muster never takes a live holder's lock; Claude Code (proper-lockfile) takes any
        // lock older than its stale time. It does so here, then lets the others in.
        const release = await lockfile.lock(inboxFile(root, team, recipient), {
          lockfilePath: `${inboxFile(root, team, recipient)}.lock`,
          realpath: false,
          stale: 2_000,
          update: 1_000,
          retries: { retries: 100, minTimeout: 100, maxTimeout: 200 },
        });
        await release();
        const results = await runNodeProcesses(writerScript, 3, (index) => [
          root,
          team,
          recipient,
          `w${index}`,
          '10',
          '1000',
        ]);
        const others = results.flatMap((result) => acknowledgedTexts(result.stdout));
        expect(others).toHaveLength(30);
        holder.child.kill('SIGCONT');
        resumed = true;
        writeFileSync(goFile, 'go');
        const holderResult = await holder.exited;
        expect(holderResult.code).toBe(0);
        const holderAcknowledged = acknowledgedTexts(holderResult.stdout);
        expect(holderAcknowledged.sort()).toEqual([...held].sort());
        const stored = expectExactlyOnce(root, [...others, ...holderAcknowledged]);
        expect(stored.size).toBe(30 + held.length);
      } finally {
        if (!resumed) holder.child.kill('SIGCONT');
        holder.child.kill('SIGKILL');
      }
    },
  );
});
