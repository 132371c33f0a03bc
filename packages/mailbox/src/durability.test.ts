import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { acquireFileLock } from '@muster/file-lock';
import { makeTempDirectory } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import { inboxFile } from './test-fixtures/team.js';

// A power cut cannot be staged in a test, so these tests watch the real system calls of a
// real sender with strace: before a send is acknowledged (its `ack` line is written), the
// new inbox's content and the rename that put it in place must both have been flushed.

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), 'test-fixtures');
const team = 'durable';
const recipient = 'reader';
const hasStrace = spawnSync('strace', ['-V']).status === 0;

type TraceEvent =
  | { kind: 'fsync'; path: string }
  | { kind: 'rename'; from: string; to: string }
  | { kind: 'ack'; text: string };

/** Runs a fixture under strace and returns its flushes, renames and acknowledgements, in order. */
async function traced(
  script: string,
  args: string[],
  whileRunning?: () => Promise<void>,
): Promise<TraceEvent[]> {
  const traceFile = path.join(args[0]!, 'trace.txt');
  const child = spawn(
    'strace',
    [
      '-f',
      '-y',
      '-qq',
      '-s',
      '200',
      '-e',
      'trace=fsync,fdatasync,rename,renameat,renameat2,write',
      '-o',
      traceFile,
      process.execPath,
      path.join(fixtures, script),
      ...args,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.resume();
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  await whileRunning?.();
  expect(await exited, stderr).toBe(0);
  const events: TraceEvent[] = [];
  for (const line of readFileSync(traceFile, 'utf8').split('\n')) {
    const flush = /\b(?:fsync|fdatasync)\(\d+<([^>]+)>\) = 0/.exec(line);
    if (flush) events.push({ kind: 'fsync', path: flush[1]! });
    const rename = /\brename(?:at2?)?\((?:[^,]+, )?"([^"]+)", (?:[^,]+, )?"([^"]+)"/.exec(line);
    if (rename && / = 0$/.test(line)) {
      events.push({ kind: 'rename', from: rename[1]!, to: rename[2]! });
    }
    const ack = /\bwrite\(1<[^>]*>, "ack ([^\\"]+)\\n"/.exec(line);
    if (ack) events.push({ kind: 'ack', text: ack[1]! });
  }
  return events;
}

/** The events before each acknowledgement (since the previous one). */
function segments(events: TraceEvent[]): TraceEvent[][] {
  const result: TraceEvent[][] = [];
  let current: TraceEvent[] = [];
  for (const event of events) {
    current.push(event);
    if (event.kind === 'ack') {
      result.push(current);
      current = [];
    }
  }
  return result;
}

/** Asserts: the temp file was flushed, renamed over the inbox, then the folder flushed. */
function expectDurableCommit(segment: TraceEvent[], inbox: string) {
  const renameAt = segment.findIndex((event) => event.kind === 'rename' && event.to === inbox);
  expect(renameAt, 'the inbox was replaced before the acknowledgement').toBeGreaterThanOrEqual(0);
  const rename = segment[renameAt] as { from: string };
  const before = segment.slice(0, renameAt);
  const after = segment.slice(renameAt + 1);
  expect(before).toContainEqual({ kind: 'fsync', path: rename.from });
  expect(after).toContainEqual({ kind: 'fsync', path: path.dirname(inbox) });
}

describe.skipIf(!hasStrace)('an acknowledged send is durable (traced with strace)', () => {
  it('a direct send: content flushed before the rename, the rename flushed before the ack', async () => {
    const root = await makeTempDirectory('muster-mailbox-durable-');
    const events = await traced('writer.mjs', [root, team, recipient, 'w', '3']);
    const inbox = inboxFile(root, team, recipient);
    const perAck = segments(events);
    expect(perAck.map((segment) => segment.at(-1))).toEqual(
      ['w-0', 'w-1', 'w-2'].map((text) => ({ kind: 'ack', text })),
    );
    for (const segment of perAck) expectDurableCommit(segment, inbox);
  });

  it('a group commit: its record is flushed before the rename, and the folder once per group', async () => {
    const root = await makeTempDirectory('muster-mailbox-durable-group-');
    const inbox = inboxFile(root, team, recipient);
    mkdirSync(path.dirname(inbox), { recursive: true });
    const texts = ['g-1', 'g-2', 'g-3'];
    const blocker = await acquireFileLock(inbox);
    const spool = path.join(root, 'teams', team, '.muster', 'mailbox', recipient, 'spool');
    const events = await traced(
      'hold-at-step.mjs',
      [root, team, recipient, 'never', 'direct', path.join(root, 'go'), '10000', ...texts],
      async () => {
        // Hold the lock until all three are queued: then one commit carries them all.
        const queued = () =>
          existsSync(spool) ? readdirSync(spool).filter((name) => name.endsWith('.json')) : [];
        while (queued().length < texts.length) {
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        await blocker.release();
      },
    );
    const first = segments(events)[0]!;
    expectDurableCommit(first, inbox);
    const sidecar = path.dirname(spool);
    const renameAt = first.findIndex((event) => event.kind === 'rename' && event.to === inbox);
    expect(first.slice(0, renameAt)).toContainEqual({
      kind: 'fsync',
      path: path.join(sidecar, 'commit.json'),
    });
    expect(first.slice(0, renameAt)).toContainEqual({ kind: 'fsync', path: sidecar });
    const acks = events.filter((event) => event.kind === 'ack');
    expect(acks.map((event) => (event as { text: string }).text).sort()).toEqual(texts);
    // Group commit: one inbox replacement and one folder flush for the three messages.
    const renames = events.filter((event) => event.kind === 'rename' && event.to === inbox);
    const folderFlushes = events.filter(
      (event) => event.kind === 'fsync' && event.path === path.dirname(inbox),
    );
    expect(renames).toHaveLength(1);
    expect(folderFlushes).toHaveLength(1);
  });
});
