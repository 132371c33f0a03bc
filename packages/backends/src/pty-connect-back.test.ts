// The pty backend with real muster-like members (test-fixtures/member.mjs on the built package):
// they connect back to the lead link, say ready, and then idle, exit, start grandchildren or
// ignore SIGTERM.
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempDirectory } from '@muster/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { BackendError } from './backend-error.js';
import type { MemberSpec } from './backend-types.js';
import { createPtyBackend, type PtyBackend } from './pty-backend.js';
import { isProcessAlive, waitUntil } from './pty-test-support.js';

const memberFixture = fileURLToPath(new URL('../test-fixtures/member.mjs', import.meta.url));
const backends: PtyBackend[] = [];
const strays: number[] = [];

afterEach(async () => {
  await Promise.allSettled(backends.splice(0).map((backend) => backend.close()));
  for (const pid of strays.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone, as it should be.
    }
  }
});

async function start(
  mode: string[],
  extra: Partial<MemberSpec> = {},
): Promise<{ backend: PtyBackend; spec: MemberSpec; eventsFile: string }> {
  const root = await makeTempDirectory('muster-pty-link-');
  const eventsFile = path.join(root, 'events.jsonl');
  // The lead link lives in the team folder, which creating the team makes.
  mkdirSync(path.join(root, 'teams', 'alpha'), { recursive: true });
  const backend = createPtyBackend();
  backends.push(backend);
  const spec: MemberSpec = {
    root,
    teamName: 'alpha',
    agentName: 'worker',
    agentId: 'worker@alpha',
    cwd: root,
    command: { file: process.execPath, args: [memberFixture, ...mode] },
    environment: { MEMBER_FIXTURE_LOG: eventsFile },
    ...extra,
  };
  return { backend, spec, eventsFile };
}

function events(file: string): { event: string; pids?: number[] }[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { event: string; pids?: number[] });
}

describe('pty members that connect back', () => {
  it('is ready when the member says so over the lead link, and shows its screen', async () => {
    const { backend, spec } = await start(['idle']);
    const member = await backend.spawn(spec);
    await member.ready;
    expect(member.isAlive()).toBe(true);
    await waitUntil(
      async () => (await member.screen()).lines.includes('member worker@alpha ready'),
      10_000,
    );
    const exit = await member.kill();
    expect(exit.reason).toBe('killed');
    expect(member.isAlive()).toBe(false);
  });

  it('reports the exit code of a member that exits after saying ready', async () => {
    const { backend, spec } = await start(['exit', '3']);
    const member = await backend.spawn(spec);
    await member.ready;
    expect(await member.exited).toMatchObject({ reason: 'exited', code: 3, signal: null });
  });

  it('rejects ready and kills a member that connects but never says ready', async () => {
    const { backend, spec } = await start(['never-ready'], { readyTimeoutMs: 1_000 });
    const member = await backend.spawn(spec);
    const error = await member.ready.catch((caught: unknown) => caught);
    expect(BackendError.hasCode(error, 'NOT_READY')).toBe(true);
    expect((await member.exited).reason).toBe('not-ready');
    expect(member.isAlive()).toBe(false);
  });

  it('rejects ready with the exit code of a member that ends without connecting', async () => {
    const { backend, spec } = await start([]);
    const member = await backend.spawn({
      ...spec,
      command: { file: 'sh', args: ['-c', 'exit 5'] },
    });
    await expect(member.ready).rejects.toThrow(/ended before it said so \(exit code 5\)/);
    expect(await member.exited).toMatchObject({ reason: 'exited', code: 5 });
  });

  it('kill ends HUP- and TERM-ignoring grandchildren, in its group and in a new session (R24)', async () => {
    const { backend, spec, eventsFile } = await start(['grandchild']);
    const member = await backend.spawn(spec);
    await member.ready;
    const grandchildren = events(eventsFile).find((each) => each.event === 'grandchildren')
      ?.pids as number[];
    strays.push(...grandchildren);
    expect(grandchildren.length).toBeGreaterThanOrEqual(3);
    expect(grandchildren.every((pid) => isProcessAlive(pid))).toBe(true);
    const memberPid = member.describe().pid as number;
    expect((await member.kill({ graceful: true, deadlineMs: 1_000 })).reason).toBe('killed');
    await waitUntil(
      () => [memberPid, ...grandchildren].every((pid) => !isProcessAlive(pid)),
      10_000,
    );
    expect([memberPid, ...grandchildren].filter((pid) => isProcessAlive(pid))).toEqual([]);
  });

  it('a member that ignores SIGTERM is SIGKILLed after the deadline', async () => {
    const { backend, spec, eventsFile } = await start(['ignore-term']);
    const member = await backend.spawn(spec);
    await member.ready;
    const exit = await member.kill({ graceful: true, deadlineMs: 500 });
    expect(exit).toMatchObject({ reason: 'killed', signal: 'SIGKILL' });
    expect(events(eventsFile).some((each) => each.event === 'term-ignored')).toBe(true);
  });
});
