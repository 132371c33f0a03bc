// R29: each in-process member has its own lifecycle signal. The agent loop links a per-turn
// controller to it and unlinks it after the turn (§5.3 of the research): this shows the
// lifecycle signal holds no listener per turn, that killing a member aborts its in-flight turn
// and the turn's tool process group, and that one member's signal is nobody else's.
import { spawn } from 'node:child_process';
import { getEventListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { makeTempDirectory } from '@muster/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import type { Backend, InProcessMemberContext, MemberSpec } from './backend-types.js';
import { createInProcessBackend } from './in-process-backend.js';
import { currentMember } from './member-context.js';

const TEAM = 'lifecycle-team';
const backends: Backend[] = [];
const processGroups: number[] = [];
afterEach(async () => {
  await Promise.allSettled(backends.splice(0).map((backend) => backend.close()));
  for (const group of processGroups.splice(0)) {
    try {
      process.kill(-group, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

async function spec(
  agentName: string,
  run: (context: InProcessMemberContext) => Promise<void>,
): Promise<MemberSpec> {
  const root = await makeTempDirectory('muster-lifecycle-');
  return { root, teamName: TEAM, agentName, agentId: `${agentName}@${TEAM}`, cwd: root, run };
}

function open(): Backend {
  const backend = createInProcessBackend();
  backends.push(backend);
  return backend;
}

/** One turn as the agent loop runs it: a fresh controller linked to the lifecycle, unlinked in finally. */
async function runTurn(
  lifecycle: AbortSignal,
  work: (turn: AbortSignal) => Promise<void>,
): Promise<void> {
  const turn = new AbortController();
  const link = () => turn.abort(lifecycle.reason);
  lifecycle.addEventListener('abort', link, { once: true });
  if (lifecycle.aborted) link();
  try {
    await work(turn.signal);
  } finally {
    lifecycle.removeEventListener('abort', link);
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('lifecycle signal (R29)', () => {
  it('holds at most 2 abort listeners after 1 000 turns', async () => {
    let countAfterTurns = -1;
    let countDuringTurn = -1;
    const handle = await open().spawn(
      await spec('turner', async (context) => {
        context.ready();
        for (let index = 0; index < 1_000; index += 1) {
          await runTurn(context.signal, async () => {
            if (index === 500) countDuringTurn = getEventListeners(context.signal, 'abort').length;
            await Promise.resolve();
          });
        }
        countAfterTurns = getEventListeners(context.signal, 'abort').length;
      }),
    );
    expect((await handle.exited).reason).toBe('exited');
    expect(countDuringTurn).toBeGreaterThanOrEqual(1);
    expect(countAfterTurns).toBeLessThanOrEqual(2);
    console.log(
      `R29: abort listeners on the lifecycle signal: ${String(countDuringTurn)} during a turn, ${String(countAfterTurns)} after 1 000 turns`,
    );
  });

  it('kill aborts the in-flight turn and its tool process group; the member ends as killed', async () => {
    let toolPid = 0;
    let turnError: unknown;
    const handle = await open().spawn(
      await spec('tool-runner', async (context) => {
        context.ready();
        try {
          await runTurn(
            context.signal,
            (turn) =>
              new Promise<void>((resolve, reject) => {
                // A tool started in this turn: its own process group, ended when the turn aborts.
                const child = spawn('sleep', ['1000'], {
                  detached: true,
                  stdio: 'ignore',
                  cwd: context.cwd,
                });
                toolPid = child.pid ?? 0;
                processGroups.push(toolPid);
                turn.addEventListener('abort', () => process.kill(-toolPid, 'SIGTERM'), {
                  once: true,
                });
                child.once('exit', () => (turn.aborted ? reject(turn.reason as Error) : resolve()));
              }),
          );
        } catch (error) {
          turnError = error;
          throw error;
        }
      }),
    );
    await handle.ready;
    for (let waited = 0; toolPid === 0 && waited < 10_000; waited += 10) await sleep(10);
    expect(isRunning(toolPid)).toBe(true);

    const exit = await handle.kill({ graceful: true, deadlineMs: 10_000 });
    expect(exit.reason).toBe('killed');
    expect(exit.message).toMatch(/its run settled/);
    expect(turnError).toMatchObject({ name: 'AbortError' });
    expect(isRunning(toolPid)).toBe(false);
  });

  it("one member's signal is its own: killing one, or aborting the lead's turn, aborts no other", async () => {
    const backend = open();
    const signals = new Map<string, AbortSignal>();
    const handles = await Promise.all(
      ['first', 'second', 'third'].map(async (name) =>
        backend.spawn(
          await spec(name, async (context) => {
            signals.set(name, context.signal);
            context.ready();
            await new Promise<void>((resolve) =>
              context.signal.addEventListener('abort', () => resolve()),
            );
          }),
        ),
      ),
    );
    await Promise.all(handles.map((handle) => handle.ready));
    const leadTurn = new AbortController();
    leadTurn.abort(); // the user interrupts the lead's own turn (Escape)
    await handles[1]?.kill();
    expect(signals.get('second')?.aborted).toBe(true);
    expect(signals.get('first')?.aborted).toBe(false);
    expect(signals.get('third')?.aborted).toBe(false);
    expect(handles[0]?.isAlive()).toBe(true);
    await backend.close();
    expect(signals.get('first')?.aborted).toBe(true);
    expect(signals.get('third')?.aborted).toBe(true);
  });

  it('100 spawn/kill cycles leave no growth: crash listeners and active resources (R33)', async () => {
    const uncaughtBefore = process.listenerCount('uncaughtException');
    const rejectionBefore = process.listenerCount('unhandledRejection');
    const resourcesBefore = process.getActiveResourcesInfo().length;
    for (let cycle = 0; cycle < 100; cycle += 1) {
      const backend = createInProcessBackend();
      const handle = await backend.spawn(
        await spec(`cycle-${String(cycle)}`, async (context) => {
          context.ready();
          await new Promise<void>((resolve) =>
            context.signal.addEventListener('abort', () => resolve(), { once: true }),
          );
        }),
      );
      await handle.ready;
      expect((await handle.kill({ graceful: cycle % 2 === 0, deadlineMs: 1_000 })).reason).toBe(
        'killed',
      );
      await backend.close();
    }
    await sleep(20);
    expect(process.listenerCount('uncaughtException')).toBe(uncaughtBefore);
    expect(process.listenerCount('unhandledRejection')).toBe(rejectionBefore);
    const resourcesAfter = process.getActiveResourcesInfo().length;
    expect(resourcesAfter).toBeLessThanOrEqual(resourcesBefore);
    console.log(
      `R33: active resources ${String(resourcesBefore)} before, ${String(resourcesAfter)} after 100 in-process spawn/kill cycles`,
    );
  });

  it('listeners on the lifecycle signal run as the member, whoever called kill()', async () => {
    let seenByListener: unknown = 'not called';
    const handle = await open().spawn(
      await spec('listener', async (context) => {
        context.signal.addEventListener(
          'abort',
          () => (seenByListener = currentMember()?.agentId),
          { once: true },
        );
        context.ready();
        await new Promise<void>((resolve) =>
          context.signal.addEventListener('abort', () => resolve()),
        );
      }),
    );
    await handle.ready;
    expect(currentMember()).toBeUndefined();
    await handle.kill();
    expect(seenByListener).toBe(`listener@${TEAM}`);
  });
});
