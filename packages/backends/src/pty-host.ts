// The PTY host: a small program (built to `dist/pty-host.js`) that the pty backend starts once
// per backend instance. It opens every PTY of that backend and starts nothing else, so the PTY
// masters (which node-pty 1.1.0 leaves inheritable) never reach the lead's other children (R23).
// When the lead goes away (the IPC channel closes, even when the lead was SIGKILLed) it kills
// every member's process group and session and exits; the members themselves run under
// `setpriv --pdeathsig KILL` where available, so they die with the host in any case.
import { readdirSync, readFileSync } from 'node:fs';
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
  if (process.connected) process.send?.(event);
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

const live = new Map<number, PtyProcess>();

/** Pids of the live processes in session `sessionId` (job-control shells start other groups). */
function sessionMembers(sessionId: number): number[] {
  const pids: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return pids; // No /proc (macOS): the group kill is all we can do.
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const text = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[3]) === sessionId && fields[0] !== 'Z') pids.push(Number(entry));
    } catch {
      // Ended while we looked.
    }
  }
  return pids;
}

function killEveryMember(): void {
  for (const pty of live.values()) {
    // A PTY child leads its session and group; its session id stays taken while any process
    // of the session lives, so these pids are the member's.
    const targets = [-pty.pid, ...sessionMembers(pty.pid)];
    for (const target of targets) {
      try {
        process.kill(target, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  }
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
  process.on('disconnect', () => {
    killEveryMember();
    process.exit(0);
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
