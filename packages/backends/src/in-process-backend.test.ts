// The in-process backend behind the one interface (R14): ready, exit reasons, kill, checks.
import { setTimeout as sleep } from 'node:timers/promises';
import { makeTempDirectory } from '@muster/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { BackendError } from './backend-error.js';
import type { Backend, InProcessMemberContext, MemberHandle, MemberSpec } from './backend-types.js';
import { createInProcessBackend } from './in-process-backend.js';
import { isCrashContainmentInstalled } from './in-process-crash-handler.js';
import { currentMember } from './member-context.js';

const TEAM = 'in-process-team';
const backends: Backend[] = [];
afterEach(async () => {
  await Promise.allSettled(backends.splice(0).map((backend) => backend.close()));
});

function open(options?: Parameters<typeof createInProcessBackend>[0]): Backend {
  const backend = createInProcessBackend(options);
  backends.push(backend);
  return backend;
}

async function spec(
  agentName: string,
  run: (context: InProcessMemberContext) => Promise<void>,
  extra: Partial<MemberSpec> = {},
): Promise<MemberSpec> {
  const root = await makeTempDirectory('muster-in-process-');
  return {
    root,
    teamName: TEAM,
    agentName,
    agentId: `${agentName}@${TEAM}`,
    cwd: root,
    run,
    ...extra,
  };
}

const untilAborted = (signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
  });

describe('in-process backend', () => {
  it('is always available and says what members share', async () => {
    const availability = await open().availability();
    expect(availability.available).toBe(true);
    expect(JSON.stringify(availability)).toMatch(/CPU-bound tool must run in a child process/);
  });

  it('runs the member under its identity, is ready when it says so, and reports a clean exit', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let seen: unknown;
    const handle = await open().spawn(
      await spec('alpha', async (context) => {
        seen = { member: currentMember(), cwd: context.cwd };
        context.ready();
        await released;
      }),
    );
    expect(handle.backend).toBe('in-process');
    await handle.ready;
    expect(handle.isAlive()).toBe(true);
    expect(seen).toEqual({
      member: { agentId: `alpha@${TEAM}`, agentName: 'alpha', teamName: TEAM },
      cwd: handle.spec.cwd,
    });
    expect(currentMember()).toBeUndefined();
    release();
    const exit = await handle.exited;
    expect(exit).toMatchObject({ reason: 'exited', code: 0, signal: null });
    expect(handle.isAlive()).toBe(false);
    expect(handle.describe().notes?.join(' ')).toMatch(/inside the lead process/);
    expect(handle.describe().pid).toBeUndefined();
  });

  it('readiness "external" waits for markReady', async () => {
    const handle = await open().spawn(
      await spec('external', (context) => untilAborted(context.signal), { readiness: 'external' }),
    );
    let ready = false;
    void handle.ready.then(() => (ready = true));
    await sleep(20);
    expect(ready).toBe(false);
    handle.markReady();
    await handle.ready;
    await handle.kill();
  });

  it('ready rejects with NOT_READY when the member ends before it said ready', async () => {
    const handle = await open().spawn(await spec('quitter', () => Promise.resolve()));
    await expect(handle.ready).rejects.toMatchObject({ code: 'NOT_READY' });
    expect((await handle.exited).reason).toBe('exited');
  });

  it('a member that never calls ready is killed after readyTimeoutMs (reason not-ready, signal aborted)', async () => {
    let aborted = false;
    const handle = await open().spawn(
      await spec(
        'silent',
        async (context) => {
          await untilAborted(context.signal);
          aborted = true;
        },
        { readyTimeoutMs: 50 },
      ),
    );
    await expect(handle.ready).rejects.toThrow(/did not call context\.ready\(\) within 50 ms/);
    const exit = await handle.exited;
    expect(exit.reason).toBe('not-ready');
    expect(aborted).toBe(true);
  });

  it('a member that says ready only after its kill began is not ready', async () => {
    const handle = await open().spawn(
      await spec('late', async (context) => {
        await untilAborted(context.signal);
        context.ready();
      }),
    );
    const exit = await handle.kill();
    expect(exit.reason).toBe('killed');
    await expect(handle.ready).rejects.toMatchObject({ code: 'NOT_READY' });
  });

  it('a run that rejects ends that member only, as crashed, with the error in the message', async () => {
    const crashes: string[] = [];
    const handles = new Map<string, MemberHandle>();
    const backend = open({
      onCrash: (agentId, error) =>
        crashes.push(
          `${agentId}: ${String(error)}, alive: ${String(handles.get(agentId)?.isAlive())}`,
        ),
    });
    const survivor = await backend.spawn(
      await spec('survivor', async (context) => {
        context.ready();
        await untilAborted(context.signal);
      }),
    );
    const failing = await backend.spawn(
      await spec('failing', async (context) => {
        context.ready();
        await sleep(20); // the test has recorded the handle by then
        throw new Error('the model client blew up');
      }),
    );
    handles.set(failing.spec.agentId, failing);
    const exit = await failing.exited;
    expect(exit.reason).toBe('crashed');
    expect(exit.message).toMatch(
      /failing@in-process-team crashed: its run rejected: Error: the model client blew up/,
    );
    expect(crashes).toEqual([`failing@${TEAM}: Error: the model client blew up, alive: false`]);
    expect(survivor.isAlive()).toBe(true);
    expect((await survivor.kill()).reason).toBe('killed');
  });

  it('a synchronous throw in run is a crash, not a throw from spawn', async () => {
    const handle = await open({ onCrash: () => undefined }).spawn(
      await spec('sync-thrower', () => {
        throw new TypeError('boom');
      }),
    );
    expect((await handle.exited).message).toMatch(/TypeError: boom/);
  });

  it('graceful kill aborts the lifecycle signal and waits for run to settle', async () => {
    let reason: unknown;
    const handle = await open().spawn(
      await spec('graceful', async (context) => {
        context.ready();
        await untilAborted(context.signal);
        reason = context.signal.reason;
        await sleep(30);
      }),
    );
    await handle.ready;
    const exit = await handle.kill({ graceful: true, deadlineMs: 10_000 });
    expect(exit.reason).toBe('killed');
    expect(exit.message).toMatch(/its run settled/);
    expect(reason).toBeInstanceOf(DOMException);
    expect((reason as DOMException).name).toBe('AbortError');
    // Idempotent: a second kill returns the same exit.
    expect(await handle.kill()).toBe(exit);
  });

  it('a run that ignores its signal is marked killed at the deadline; forced kill does not wait at all', async () => {
    const backend = open({ closeDeadlineMs: 50 });
    let stop!: () => void;
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    const stubborn = await backend.spawn(
      await spec('stubborn', async (context) => {
        context.ready();
        await stopped;
      }),
    );
    const exit = await stubborn.kill({ deadlineMs: 50 });
    expect(exit.reason).toBe('killed');
    expect(exit.message).toMatch(/did not settle within 50 ms/);
    expect(stubborn.isAlive()).toBe(false);
    expect(stubborn.describe().notes?.join(' ')).toMatch(/has not settled yet/);

    const forced = await backend.spawn(
      await spec('forced', async (context) => {
        context.ready();
        await stopped;
      }),
    );
    const forcedExit = await forced.kill({ graceful: false });
    expect(forcedExit.message).toMatch(/forced/);
    stop();
  });

  it('refuses bad specs with INVALID_SPEC naming the field, a duplicate, and spawns after close', async () => {
    const backend = open();
    const good = await spec('checked', async (context) => {
      context.ready();
      await untilAborted(context.signal);
    });
    const refusals: [Partial<MemberSpec>, RegExp][] = [
      [{ run: undefined }, /spec\.run is missing/],
      [{ run: undefined, command: { file: '/bin/true', args: [] } }, /not spec\.command/],
      [{ agentId: 'someone@else' }, /spec\.agentId must be "<agentName>@<teamName>"/],
      [{ cwd: 'relative/path' }, /spec\.cwd must be an absolute path/],
      [{ teamName: '' }, /spec\.teamName must be a non-empty string/],
      [{ readyTimeoutMs: -1 }, /spec\.readyTimeoutMs must be a finite number/],
      [{ readiness: 'telepathy' as never }, /spec\.readiness must be/],
    ];
    for (const [change, message] of refusals) {
      const attempt = backend.spawn({ ...good, ...change });
      await expect(attempt).rejects.toBeInstanceOf(BackendError);
      await expect(attempt).rejects.toMatchObject({
        code: 'INVALID_SPEC',
        message: expect.stringMatching(message),
      });
    }
    const first = await backend.spawn(good);
    await expect(backend.spawn(good)).rejects.toThrow(/already running in this backend/);
    await expect(first.kill({ deadlineMs: -5 })).rejects.toThrow(
      /kill deadlineMs must be a finite number/,
    );
    await backend.close();
    expect(first.isAlive()).toBe(false);
    await expect(backend.spawn(good)).rejects.toMatchObject({ code: 'CLOSED' });
  });

  it('close kills every member (allSettled) and removes the crash listeners once runs settled', async () => {
    const listenersBefore = process.listenerCount('uncaughtException');
    const backend = createInProcessBackend();
    const handles = await Promise.all(
      ['one', 'two', 'three'].map(async (name) =>
        backend.spawn(
          await spec(name, async (context) => {
            context.ready();
            await untilAborted(context.signal);
          }),
        ),
      ),
    );
    expect(isCrashContainmentInstalled()).toBe(true);
    // Ours, and the cleanup registry's (each member registers its cleanup, R32).
    expect(process.listenerCount('uncaughtException')).toBe(listenersBefore + 2);
    await backend.close();
    const exits = await Promise.all(handles.map((handle) => handle.exited));
    expect(exits.map((exit) => exit.reason)).toEqual(['killed', 'killed', 'killed']);
    expect(isCrashContainmentInstalled()).toBe(false);
    expect(process.listenerCount('uncaughtException')).toBe(listenersBefore);
  });

  it('keeps the crash listeners while a killed member is still settling, even after close', async () => {
    const backend = createInProcessBackend({ closeDeadlineMs: 20 });
    let stop!: () => void;
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    const lingering = await backend.spawn(
      await spec('lingering', async (context) => {
        context.ready();
        await stopped;
      }),
    );
    await lingering.ready;
    await backend.close();
    expect((await lingering.exited).reason).toBe('killed');
    expect(isCrashContainmentInstalled()).toBe(true);
    stop();
    await sleep(10);
    expect(isCrashContainmentInstalled()).toBe(false);
  });

  it('without onCrash, a crash is reported as a process warning (never silent)', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const handle = await open().spawn(
        await spec('noisy', () => Promise.reject(new Error('nobody listens'))),
      );
      await handle.exited;
      for (let waited = 0; warnings.length === 0 && waited < 10_000; waited += 10) await sleep(10);
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.map((warning) => warning.message)).toEqual([
      `In-process member noisy@${TEAM} crashed (run): Error: nobody listens`,
    ]);
  });
});
