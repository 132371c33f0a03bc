// The lead's side of the PTY host: starts `pty-host.js` (one per pty backend), sends it
// requests and routes its events to the members they belong to.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { BackendError } from './backend-error.js';
import { isPtyHostEvent, type PtyHostEvent, type PtyHostRequest } from './pty-host-messages.js';

/** How long the host may take to load node-pty and say it is ready. */
const HOST_START_TIMEOUT_MS = 15_000;
/** How long `close` waits for the host to end after the channel closed, before SIGKILL. */
const HOST_CLOSE_TIMEOUT_MS = 2_000;
/** How much of the host's stderr is kept for error messages. */
const KEPT_STDERR_CHARACTERS = 4_000;

/** What a member hears from the host. */
export interface PtyHostMemberListener {
  onData(data: string): void;
  onExit(exitCode: number, signal: number): void;
  /** The host ended while the member was still running (its exit will never be reported). */
  onHostEnded(reason: string): void;
}

/** A running PTY host. */
export interface PtyHost {
  /** The host's pid (for `describe()` and the tests). */
  readonly pid: number;
  /** Opens a PTY running `file args`; resolves with the member's pid. */
  spawn(
    request: Omit<Extract<PtyHostRequest, { type: 'spawn' }>, 'type' | 'id'>,
    listener: PtyHostMemberListener,
  ): Promise<{ id: number; pid: number }>;
  /** Sends input; ignored by the host once the member has exited. */
  write(id: number, data: string): void;
  /** Resizes the PTY; ignored by the host once the member has exited. */
  resize(id: number, columns: number, rows: number): void;
  /** Called once if the host ends (closed, or crashed) with the reason. */
  onEnd(listener: (reason: string) => void): void;
  /** Closes the channel (the host kills what it still holds) and waits for the host to end. */
  close(): Promise<void>;
}

/**
 * Where the host program is: `pty-host.js` beside the built module, or, when this module runs
 * from `src/` (the package's own tests), the built one in `dist/`.
 */
export function resolvePtyHostScript(): string {
  const candidates = [
    new URL('./pty-host.js', import.meta.url),
    new URL('../dist/pty-host.js', import.meta.url),
  ];
  for (const candidate of candidates) {
    const file = fileURLToPath(candidate);
    if (existsSync(file)) return file;
  }
  const searched = candidates.map((candidate) => fileURLToPath(candidate)).join(' or ');
  throw new BackendError({
    code: 'UNAVAILABLE',
    message: `pty backend: its host program is missing (looked for ${searched}); build @muster/backends (pnpm --filter @muster/backends build)`,
  });
}

/**
 * Starts a PTY host. It is deliberately not started under `setpriv --pdeathsig`: when the lead
 * dies, the IPC channel closes and the host SIGKILLs every member's process group (which a
 * kernel-killed host could not do) before it exits. Throws `UNAVAILABLE` when the host cannot
 * load node-pty.
 */
export async function startPtyHost(options: {
  environment: Record<string, string | undefined>;
}): Promise<PtyHost> {
  const script = resolvePtyHostScript();
  const child: ChildProcess = spawn(process.execPath, [script], {
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    // Its own process group: Ctrl-C in the lead's terminal does not reach it or the members.
    detached: true,
    env: options.environment,
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-KEPT_STDERR_CHARACTERS);
  });
  const members = new Map<number, PtyHostMemberListener>();
  const pendingSpawns = new Map<
    number,
    { resolve: (pid: number) => void; reject: (error: Error) => void }
  >();
  const endListeners: ((reason: string) => void)[] = [];
  let endReason: string | undefined;
  let nextId = 1;

  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`it did not start within ${HOST_START_TIMEOUT_MS} ms`));
    }, HOST_START_TIMEOUT_MS);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('message', (message) => {
      if (!isPtyHostEvent(message)) return;
      if (message.type === 'host-ready') {
        clearTimeout(timer);
        resolve();
      } else if (message.type === 'host-failed') {
        clearTimeout(timer);
        reject(new Error(message.message));
      } else {
        route(message);
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(
        new Error(`it ended with ${signal ?? `code ${code}`}${stderr ? `: ${stderr.trim()}` : ''}`),
      );
    });
  });

  function route(event: Exclude<PtyHostEvent, { type: 'host-ready' | 'host-failed' }>): void {
    switch (event.type) {
      case 'spawned':
        pendingSpawns.get(event.id)?.resolve(event.pid);
        pendingSpawns.delete(event.id);
        return;
      case 'spawn-failed':
        pendingSpawns.get(event.id)?.reject(new Error(event.message));
        pendingSpawns.delete(event.id);
        members.delete(event.id);
        return;
      case 'data':
        members.get(event.id)?.onData(event.data);
        return;
      case 'exit': {
        const listener = members.get(event.id);
        members.delete(event.id);
        updateReference();
        listener?.onExit(event.exitCode, event.signal);
        return;
      }
    }
  }

  // The host keeps the lead's event loop alive only while it has members.
  function updateReference(): void {
    const active = members.size > 0 || pendingSpawns.size > 0;
    const handles = [child, child.channel, child.stderr] as (
      | {
          ref?(): void;
          unref?(): void;
        }
      | null
      | undefined
    )[];
    for (const handle of handles) {
      if (active) handle?.ref?.();
      else handle?.unref?.();
    }
  }

  const ended = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      endReason ??= `the PTY host (pid ${child.pid}) ended with ${signal ?? `code ${code}`}`;
      const error = new Error(endReason);
      for (const pending of pendingSpawns.values()) pending.reject(error);
      pendingSpawns.clear();
      for (const member of members.values()) member.onHostEnded(endReason);
      members.clear();
      for (const listener of endListeners) listener(endReason);
      resolve();
    });
  });

  try {
    await ready;
  } catch (error) {
    child.kill('SIGKILL');
    throw new BackendError({
      code: 'UNAVAILABLE',
      message: `pty backend: the PTY host could not start (${(error as Error).message}); make sure node-pty is built (install make and g++, then reinstall)`,
      cause: error,
    });
  }
  updateReference();

  function request(message: PtyHostRequest): void {
    if (child.connected) child.send(message);
  }

  return {
    pid: child.pid as number,
    spawn(spawnRequest, listener) {
      if (endReason !== undefined || !child.connected) {
        return Promise.reject(new Error(endReason ?? 'the PTY host is closed'));
      }
      const id = nextId;
      nextId += 1;
      members.set(id, listener);
      return new Promise((resolve, reject) => {
        pendingSpawns.set(id, { resolve: (pid) => resolve({ id, pid }), reject });
        updateReference();
        request({ type: 'spawn', id, ...spawnRequest });
      });
    },
    write(id, data) {
      if (members.has(id)) request({ type: 'write', id, data });
    },
    resize(id, columns, rows) {
      if (members.has(id)) request({ type: 'resize', id, columns, rows });
    },
    onEnd(listener) {
      endListeners.push(listener);
    },
    async close() {
      endReason ??= 'the pty backend was closed';
      if (child.exitCode === null && child.signalCode === null) {
        if (child.connected) child.disconnect();
        const timer = setTimeout(() => child.kill('SIGKILL'), HOST_CLOSE_TIMEOUT_MS);
        await ended;
        clearTimeout(timer);
      }
    },
  };
}
