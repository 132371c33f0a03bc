// A writer killed (SIGKILL) while it holds an inbox lock leaves the lock directory and its
// owner record behind. Writers in the other languages take it over under the protocol's
// owner-record rule — with a stale time of ten minutes, so the 10 s mtime rule cannot be
// what frees it.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { acquireFileLock, parseOwnerRecord } from '@muster/file-lock';
import { createMailbox } from '@muster/mailbox';
import { makeTempDirectory } from '@muster/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildGoClient,
  fixturesDirectory,
  startProcess,
  startPython,
  type Running,
} from './support/clients.js';

const team = 'lock-team';
const tenMinutesMs = 600_000;
let goBinary: string;
let buildFolder: string;

beforeAll(async () => {
  buildFolder = await mkdtemp(path.join(tmpdir(), 'muster-go-client-'));
  goBinary = await buildGoClient(buildFolder);
});

afterAll(async () => {
  await rm(buildFolder, { recursive: true, force: true });
});

async function prepareInbox(): Promise<{ root: string; inbox: string }> {
  const root = await makeTempDirectory();
  const inbox = path.join(root, 'teams', team, 'inboxes', 'lead.json');
  mkdirSync(path.dirname(inbox), { recursive: true });
  return { root, inbox };
}

/** Starts a holder, waits until it holds the lock, kills it with SIGKILL. */
async function killWhileHolding(holder: Running, inbox: string): Promise<number> {
  const line = await holder.waitForLine((text) => text.includes('"locked"'));
  const { pid } = JSON.parse(line) as { pid: number };
  holder.child.kill('SIGKILL');
  const exited = await holder.exited;
  expect(exited.signal).toBe('SIGKILL');
  expect(existsSync(`${inbox}.lock`)).toBe(true);
  const record = parseOwnerRecord(readFileSync(`${inbox}.lock.owner`, 'utf8'));
  expect(record?.pid).toBe(pid);
  return pid;
}

function expectLockGone(inbox: string) {
  expect(existsSync(`${inbox}.lock`)).toBe(false);
  expect(existsSync(`${inbox}.lock.owner`)).toBe(false);
}

describe.each([
  ['Python', (inbox: string) => startPython(['hold-lock', '--file', inbox])],
  ['Go', (inbox: string) => startProcess(goBinary, ['hold-lock', '--file', inbox])],
])('the lock of a killed %s writer', (_language, startHolder) => {
  it('is taken over by TypeScript writers under the owner-record rule', async () => {
    const { root, inbox } = await prepareInbox();
    await killWhileHolding(startHolder(inbox), inbox);

    // file-lock itself judges the recorded holder dead and takes the lock.
    const lock = await acquireFileLock(inbox, { staleMs: tenMinutesMs, deadlineMs: 10_000 });
    await lock.release();

    // And @muster/mailbox writers get through a second abandoned lock.
    await killWhileHolding(startHolder(inbox), inbox);
    const writers = ['ts0', 'ts1'].map((sender) =>
      startProcess('node', [
        path.join(fixturesDirectory, 'mailbox-writer.mjs'),
        root,
        team,
        'lead',
        sender,
        '10',
        String(tenMinutesMs),
      ]),
    );
    for (const writer of writers) {
      const result = await writer.exited;
      expect(result.code, result.stderr).toBe(0);
    }
    const mailbox = createMailbox({ root, team, recipientCheck: 'none' });
    expect((await mailbox.readAll('lead')).map((entry) => entry.text).sort()).toEqual(
      ['ts0', 'ts1']
        .flatMap((sender) => Array.from({ length: 10 }, (_, n) => `${sender}-${n}`))
        .sort(),
    );
    expectLockGone(inbox);
  });
});

describe('the lock of a killed TypeScript writer', () => {
  it('is taken over by Python and Go writers under the owner-record rule', async () => {
    const { root, inbox } = await prepareInbox();
    const holder = startProcess('node', [path.join(fixturesDirectory, 'hold-lock.mjs'), inbox]);
    await killWhileHolding(holder, inbox);

    const common = ['--root', root, '--team', team, '--to', 'lead', '--count', '5'];
    const pythonWriter = startPython([
      'send',
      ...common,
      '--from',
      'py0',
      '--text',
      'py0-',
      '--stale-ms',
      String(tenMinutesMs),
    ]);
    const goWriter = startProcess(goBinary, [
      'send',
      ...common,
      '--from',
      'go0',
      '--text',
      'go0-',
      '--stale',
      '10m',
    ]);
    for (const writer of [pythonWriter, goWriter]) {
      const result = await writer.exited;
      expect(result.code, result.stderr).toBe(0);
    }
    const mailbox = createMailbox({ root, team, recipientCheck: 'none' });
    expect((await mailbox.readAll('lead')).map((entry) => entry.text).sort()).toEqual(
      ['py0', 'go0']
        .flatMap((sender) => Array.from({ length: 5 }, (_, n) => `${sender}-${n}`))
        .sort(),
    );
    expectLockGone(inbox);
  });

  it('is waited for while its holder is alive', async () => {
    const { root, inbox } = await prepareInbox();
    const holder = startProcess('node', [path.join(fixturesDirectory, 'hold-lock.mjs'), inbox]);
    try {
      await holder.waitForLine((text) => text.includes('"locked"'));
      const common = [
        '--root',
        root,
        '--team',
        team,
        '--to',
        'lead',
        '--from',
        'py0',
        '--text',
        'x',
      ];
      const python = await startPython(['send', ...common, '--deadline-ms', '300']).exited;
      expect(python.code).toBe(1);
      expect(python.stderr).toContain('LOCK_TIMEOUT');
      expect(python.stderr).toContain(String(holder.child.pid));
      const go = await startProcess(goBinary, ['send', ...common, '--deadline', '300ms']).exited;
      expect(go.code).toBe(1);
      expect(go.stderr).toContain('LOCK_TIMEOUT');
      expect(go.stderr).toContain(String(holder.child.pid));
    } finally {
      holder.child.kill('SIGKILL');
      await holder.exited;
    }
  });
});

// The other half of the protocol's stale rule (§4.1, §4.2): a holder that is alive but no
// longer refreshes its lock (stopped with SIGSTOP here). No writer, in any language, takes it
// while the process lives, however old its mtime: each waits and finally names it as stopped.
// Once the holder is gone, its owner record frees the lock at once.
describe('a stopped holder in another language', () => {
  // Long enough that the first, short attempt always meets a fresh lock on a busy machine.
  const staleMs = 3_000;

  async function stopWhileHolding(holder: Running): Promise<void> {
    await holder.waitForLine((text) => text.includes('"locked"'));
    holder.child.kill('SIGSTOP');
  }

  it.each([
    ['Python', (inbox: string) => startPython(['hold-lock', '--file', inbox])],
    ['Go', (inbox: string) => startProcess(goBinary, ['hold-lock', '--file', inbox])],
  ])(
    '%s: TypeScript never takes a stopped live holder’s lock, even past staleMs; takes it once the holder is gone',
    async (_language, startHolder) => {
      const { inbox } = await prepareInbox();
      const holder = startHolder(inbox);
      try {
        await stopWhileHolding(holder);
        // Fresh lock, live holder: not taken (the owner record says the process is alive).
        const early = await acquireFileLock(inbox, { staleMs, deadlineMs: 200 }).catch(
          (error: unknown) => error,
        );
        expect((early as { code?: string }).code).toBe('LOCK_TIMEOUT');
        // Past staleMs too: a live (stopped) holder with a record is never overtaken, since it
        // could resume and write (PROTOCOL.md 4.2); the timeout names it as stopped.
        const late = await acquireFileLock(inbox, { staleMs, deadlineMs: staleMs + 1_500 }).catch(
          (error: unknown) => error,
        );
        expect((late as { code?: string }).code).toBe('LOCK_TIMEOUT');
        expect(String((late as Error).message)).toContain('stopped');
        // Once the holder is gone, the pid rule frees the lock at once.
        holder.child.kill('SIGKILL');
        await holder.exited;
        const lock = await acquireFileLock(inbox, { staleMs, deadlineMs: 10_000 });
        const owner = parseOwnerRecord(readFileSync(`${inbox}.lock.owner`, 'utf8'));
        expect(owner?.pid).toBe(process.pid);
        await lock.release();
        expectLockGone(inbox);
      } finally {
        holder.child.kill('SIGKILL');
        await holder.exited;
      }
    },
  );

  it('TypeScript: Python and Go writers never take it, even past staleMs; take it once the holder is gone', async () => {
    const { root, inbox } = await prepareInbox();
    const holder = startProcess('node', [path.join(fixturesDirectory, 'hold-lock.mjs'), inbox]);
    try {
      await stopWhileHolding(holder);
      const pid = String(holder.child.pid);
      const common = ['--root', root, '--team', team, '--to', 'lead', '--count', '3'];
      // Each waits longer than staleMs, so the mtime rule would have freed the lock.
      const python = await startPython([
        ...['send', ...common, '--from', 'py0', '--text', 'py0-'],
        ...['--stale-ms', String(staleMs), '--deadline-ms', String(staleMs + 1_500)],
      ]).exited;
      expect(python.code, python.stderr).toBe(1);
      expect(python.stderr).toContain('LOCK_TIMEOUT');
      expect(python.stderr).toContain('stopped');
      expect(python.stderr).toContain(`kill -CONT ${pid}`);
      const go = await startProcess(goBinary, [
        ...['send', ...common, '--from', 'go0', '--text', 'go0-'],
        ...['--stale', '3s', '--deadline', '4500ms'],
      ]).exited;
      expect(go.code, go.stderr).toBe(1);
      expect(go.stderr).toContain('LOCK_TIMEOUT');
      expect(go.stderr).toContain('stopped');
      expect(go.stderr).toContain(`kill -CONT ${pid}`);
      expect(existsSync(`${inbox}.lock`)).toBe(true);

      // Once the holder is gone, the pid rule frees the lock at once (ten minutes stale time).
      holder.child.kill('SIGKILL');
      await holder.exited;
      const pythonAfter = await startPython([
        ...['send', ...common, '--from', 'py0', '--text', 'py0-'],
        ...['--stale-ms', String(tenMinutesMs), '--deadline-ms', '10000'],
      ]).exited;
      expect(pythonAfter.code, pythonAfter.stderr).toBe(0);
      const goAfter = await startProcess(goBinary, [
        ...['send', ...common, '--from', 'go0', '--text', 'go0-'],
        ...['--stale', '10m', '--deadline', '10s'],
      ]).exited;
      expect(goAfter.code, goAfter.stderr).toBe(0);
      const mailbox = createMailbox({ root, team, recipientCheck: 'none' });
      expect((await mailbox.readAll('lead')).map((entry) => entry.text).sort()).toEqual([
        'go0-0',
        'go0-1',
        'go0-2',
        'py0-0',
        'py0-1',
        'py0-2',
      ]);
      expectLockGone(inbox);
    } finally {
      holder.child.kill('SIGKILL');
      await holder.exited;
    }
  });
});
