// R27: every entry point of an in-process member runs under its own identity, through shared
// emitters and a shared file watcher, with 0 misattributions over 10 000 calls.
import { EventEmitter } from 'node:events';
import { watch, writeFileSync, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import { setImmediate as nextImmediate, setTimeout as sleep } from 'node:timers/promises';
import { makeTempDirectory } from '@muster/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import type { InProcessMemberContext, MemberHandle } from './backend-types.js';
import { createInProcessBackend } from './in-process-backend.js';
import { bindToMember, currentMember, runOutsideMembers } from './member-context.js';

const MEMBERS = 8;
const ROUNDS = 105;
const TEAM = 'als-team';

function memberSpec(
  root: string,
  agentName: string,
  run: (context: InProcessMemberContext) => Promise<void>,
) {
  return { root, teamName: TEAM, agentName, agentId: `${agentName}@${TEAM}`, cwd: root, run };
}

async function waitFor(condition: () => boolean, what: string, boundMs = 10_000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > boundMs)
      throw new Error(`timed out after ${String(boundMs)} ms waiting for ${what}`);
    await sleep(10);
  }
}

describe('member identity (R27)', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('is undefined outside members, and runOutsideMembers/bindToMember behave outside members', () => {
    expect(currentMember()).toBeUndefined();
    expect(runOutsideMembers(() => currentMember())).toBeUndefined();
    expect(bindToMember(() => currentMember())()).toBeUndefined();
    expect(() => bindToMember(42 as unknown as () => void)).toThrow(/expects a function/);
  });

  it('8 concurrent members through a shared emitter and a shared watcher: 10 000 calls, 0 misattributed', async () => {
    const folder = await makeTempDirectory('muster-als-');
    const backend = createInProcessBackend();
    cleanups.push(() => backend.close());

    let calls = 0;
    const misattributed: string[] = [];
    /** The "tool": deep inside a member, it asks who is running and compares with who should be. */
    const tool = (expected: string) => {
      calls += 1;
      const seen = currentMember()?.agentId;
      if (seen !== expected) misattributed.push(`${expected} seen as ${String(seen)}`);
    };

    // Shared resources: one bus every member emits on, and one watcher created lazily by the
    // first member that needs it, outside every member, dispatching to bound listeners.
    const bus = new EventEmitter();
    bus.setMaxListeners(0);
    const watchBus = new EventEmitter();
    watchBus.setMaxListeners(0);
    let watcher: FSWatcher | undefined;
    let rawWatcherCallbacksInsideAMember = 0;
    const ensureWatcher = () => {
      watcher ??= runOutsideMembers(() =>
        watch(folder, (_event, fileName) => {
          if (currentMember() !== undefined) rawWatcherCallbacksInsideAMember += 1;
          watchBus.emit('change', String(fileName));
        }),
      );
    };
    cleanups.push(() => watcher?.close());

    // Control: a listener registered by a member WITHOUT bindToMember sees the emitter's caller.
    const unboundSeen = new Set<string>();
    const watcherEventsSeen = new Map<string, number>();
    let go!: () => void;
    const started = new Promise<void>((resolve) => (go = resolve));

    const handles: MemberHandle[] = [];
    for (let index = 0; index < MEMBERS; index += 1) {
      const agentName = `worker-${String(index)}`;
      const handle = await backend.spawn(
        memberSpec(folder, agentName, async (context) => {
          const me = context.agentId;
          ensureWatcher();
          bus.on(
            'ping',
            bindToMember(() => tool(me)),
          );
          watchBus.on(
            'change',
            bindToMember(() => {
              tool(me);
              watcherEventsSeen.set(me, (watcherEventsSeen.get(me) ?? 0) + 1);
            }),
          );
          if (index === 0)
            bus.on('ping', () => unboundSeen.add(currentMember()?.agentId ?? 'lead'));
          context.ready();
          await started;
          for (let round = 0; round < ROUNDS; round += 1) {
            tool(me);
            await nextImmediate();
            tool(me);
            await new Promise<void>((resolve) =>
              setTimeout(() => {
                tool(me);
                resolve();
              }, 0),
            );
            await new Promise<void>((resolve) =>
              queueMicrotask(() => {
                process.nextTick(() => {
                  tool(me);
                  resolve();
                });
              }),
            );
            bus.emit('ping');
            if (round % 15 === 0)
              writeFileSync(join(folder, `${agentName}-${String(round)}.txt`), me);
          }
          // Stay until this member's bound watcher listener has seen the files change.
          while (!context.signal.aborted && (watcherEventsSeen.get(me) ?? 0) === 0) await sleep(10);
        }),
      );
      handles.push(handle);
    }
    await Promise.all(handles.map((handle) => handle.ready));
    go();
    const exits = await Promise.all(handles.map((handle) => handle.exited));

    expect(exits.map((exit) => exit.reason)).toEqual(
      Array.from({ length: MEMBERS }, () => 'exited'),
    );
    expect(calls).toBeGreaterThanOrEqual(10_000);
    expect(misattributed).toEqual([]);
    expect(watcherEventsSeen.size).toBe(MEMBERS);
    expect(rawWatcherCallbacksInsideAMember).toBe(0);
    // The control shows the test can see a misattribution: the unbound listener ran as the
    // member that emitted, i.e. as all 8 of them.
    expect(unboundSeen.size).toBe(MEMBERS);
    console.log(
      `R27: ${String(calls)} calls by ${String(MEMBERS)} members, ${String(misattributed.length)} misattributed`,
    );
  });

  it('a watcher created lazily inside a member without runOutsideMembers carries that member forever (why the helper exists)', async () => {
    const folder = await makeTempDirectory('muster-als-');
    const backend = createInProcessBackend();
    cleanups.push(() => backend.close());
    const seenByWatcher: string[] = [];
    let watcher: FSWatcher | undefined;
    cleanups.push(() => watcher?.close());
    const first = await backend.spawn(
      memberSpec(folder, 'creator', async (context) => {
        watcher = watch(folder, () => seenByWatcher.push(currentMember()?.agentId ?? 'lead'));
        context.ready();
        await new Promise<void>((resolve) =>
          context.signal.addEventListener('abort', () => resolve()),
        );
      }),
    );
    await first.ready;
    const writer = await backend.spawn(
      memberSpec(folder, 'writer', (context) => {
        context.ready();
        writeFileSync(join(folder, 'from-writer.txt'), 'x');
        return Promise.resolve();
      }),
    );
    await writer.exited;
    await waitFor(() => seenByWatcher.length > 0, 'the watcher to fire');
    expect(seenByWatcher[0]).toBe('creator@als-team');
    await first.kill();
  });

  it('two copies of the package share one identity store (a bundled copy sees members of the other)', async () => {
    // The built dist/ is a second copy of this module beside the src/ one the test imports.
    const distCopy = (await import(new URL('../dist/index.js', import.meta.url).href)) as {
      currentMember: typeof currentMember;
    };
    expect(distCopy.currentMember).not.toBe(currentMember);
    const folder = await makeTempDirectory('muster-als-');
    const backend = createInProcessBackend();
    cleanups.push(() => backend.close());
    let seenByOtherCopy: unknown;
    const handle = await backend.spawn(
      memberSpec(folder, 'shared', (context) => {
        seenByOtherCopy = distCopy.currentMember()?.agentId;
        context.ready();
        return Promise.resolve();
      }),
    );
    await handle.exited;
    expect(seenByOtherCopy).toBe(`shared@${TEAM}`);
  });
});
