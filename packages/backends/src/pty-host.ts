// The PTY host: a small program (built to `dist/pty-host.js`) that the pty backend starts once
// per backend instance. It opens every PTY of that backend and starts nothing else, so the PTY
// masters (which node-pty 1.1.0 leaves inheritable) never reach the lead's other children (R23).
// When the lead goes away (the IPC channel closes, even when the lead was SIGKILLed) it kills
// every member's process group, session and descendants and exits; the members themselves run under
// `setpriv --pdeathsig KILL` where available, so they die with the host in any case.
import { killProcessTree, readProcessIdentity } from './process-control.js';
import type { PtyHostEvent, PtyHostRequest } from './pty-host-messages.js';

interface PtyProcess {
  readonly pid: number;
  onData(listener: (data: string) => void): unknown;
  onExit(listener: (event: { exitCode: number; signal?: number }) => void): unknown;
  write(data: string): void;
  resize(columns: number, rows: number): void;
}

interface PtyModule {
  spawn(
    file: string,
    args: string[],
    options: {
      name: string;
      cols: number;
      rows: number;
      cwd: string;
      env: Record<string, string>;
    },
  ): PtyProcess;
}

function send(event: PtyHostEvent): void {
  // A send racing the lead's death fails with EPIPE: with a callback the error comes here
  // instead of as an 'error' event on `process`, which would crash the host before it could
  // end the members (their HUP-ignoring children would then outlive everyone).
  if (process.connected) process.send?.(event, undefined, {}, () => undefined);
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

const live = new Map<number, PtyProcess>();

/** How often the host checks that the lead (its parent) is still there. */
const LEAD_CHECK_INTERVAL_MS = 250;

/**
 * Ends every member at once: its group, its session and its descendants (a `setsid` grandchild
 * included), collected before any signal so that none is missed while its parent dies.
 */
async function killEveryMember(): Promise<void> {
  await Promise.allSettled(
    [...live.values()].map(async (pty) => {
      // Not reaped yet (its exit was not reported), so the pid is still the member's.
      const identity = readProcessIdentity(pty.pid);
      if (identity !== undefined) {
        await killProcessTree(identity, { graceMs: 0, settleMs: 500 });
        return;
      }
      try {
        process.kill(-pty.pid, 'SIGKILL'); // No /proc (macOS): the group is all we can reach.
      } catch {
        // Already gone.
      }
    }),
  );
}

function handle(pty: PtyModule, request: PtyHostRequest): void {
  switch (request.type) {
    case 'spawn': {
      let child: PtyProcess;
      try {
        child = pty.spawn(request.file, request.args, {
          name: request.environment.TERM ?? 'xterm-256color',
          cols: request.columns,
          rows: request.rows,
          cwd: request.cwd,
          env: request.environment,
        });
      } catch (error) {
        send({ type: 'spawn-failed', id: request.id, message: describeError(error) });
        return;
      }
      live.set(request.id, child);
      send({ type: 'spawned', id: request.id, pid: child.pid });
      child.onData((data) => send({ type: 'data', id: request.id, data }));
      child.onExit(({ exitCode, signal }) => {
        // Forget it first: write and resize after exit are no-ops from here on (R25).
        live.delete(request.id);
        send({ type: 'exit', id: request.id, exitCode, signal: signal ?? 0 });
      });
      return;
    }
    case 'write':
    case 'resize': {
      const child = live.get(request.id);
      if (child === undefined) return;
      try {
        if (request.type === 'write') child.write(request.data);
        else child.resize(request.columns, request.rows);
      } catch {
        // The member ended between its exit and our bookkeeping (EBADF): nothing to do.
      }
      return;
    }
  }
}

async function main(): Promise<void> {
  let pty: PtyModule;
  try {
    pty = (await import('node-pty')) as unknown as PtyModule;
  } catch (error) {
    send({ type: 'host-failed', message: describeError(error) });
    process.disconnect?.();
    return;
  }
  process.on('message', (message) => handle(pty, message as PtyHostRequest));
  let ending = false;
  const leadIsGone = (): void => {
    if (ending) return;
    ending = true;
    void killEveryMember().finally(() => process.exit(0));
  };
  process.on('disconnect', leadIsGone);
  // A second witness of the lead's death that does not depend on the channel: the host is the
  // lead's child, so its parent pid changes when the lead dies (Node reads getppid each time).
  const leadPid = process.ppid;
  setInterval(() => {
    if (process.ppid !== leadPid) leadIsGone();
  }, LEAD_CHECK_INTERVAL_MS).unref();
  // The lead's end of stderr is gone with the lead: a late warning must not crash the host.
  process.stderr.on('error', () => undefined);
  // A crash of the host itself still ends every member before it exits.
  process.on('uncaughtException', (error) => {
    ending = true;
    process.stderr.write(`pty-host: ${describeError(error)}; ending every member\n`);
    void killEveryMember().finally(() => process.exit(1));
  });
  // Ctrl-C in the lead's terminal is for the lead: it decides when members end.
  process.on('SIGINT', () => undefined);
  send({ type: 'host-ready' });
}

if (process.send === undefined) {
  process.stderr.write(
    'pty-host: this program is started by the pty backend of @muster/backends over an IPC channel; do not run it by hand\n',
  );
  process.exitCode = 2;
} else {
  void main();
}
