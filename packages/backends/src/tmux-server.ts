// The tmux server a backend uses: the lead's own (lead inside tmux) or a private one started
// for the team (`tmux -L muster-<team> -D` under `setpriv --pdeathsig KILL`, R21), which dies
// with the lead even when the lead is SIGKILLed.
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { BackendError } from './backend-error.js';
import { readTmuxVersion } from './tmux-mode.js';
import { describeServerFlags, TmuxCommandError, TmuxRunner } from './tmux-runner.js';

/** Which server a pane id belongs to: pane ids restart at `%0` on every new server (R16). */
export interface TmuxServerIdentity {
  /** Absolute path of the server's socket (`#{socket_path}`). */
  socketPath: string;
  /** The server's process id (`#{pid}`). */
  serverPid: number;
}

/** Reads the server's socket path and pid; rejects with `TmuxCommandError` when none answers. */
export async function readServerIdentity(runner: TmuxRunner): Promise<TmuxServerIdentity> {
  const output = await runner.run(['display-message', '-p', '#{pid} #{socket_path}']);
  return parseServerIdentity(output);
}

/** Parses `#{pid} #{socket_path}`. */
export function parseServerIdentity(output: string): TmuxServerIdentity {
  const line = output.trim();
  const space = line.indexOf(' ');
  const serverPid = Number(line.slice(0, space));
  if (space < 0 || !Number.isInteger(serverPid)) {
    throw new TmuxCommandError(['display-message'], `unexpected answer: ${line}`, null);
  }
  return { serverPid, socketPath: line.slice(space + 1) };
}

/** A private tmux server this backend started and owns. */
export interface PrivateTmuxServer {
  readonly runner: TmuxRunner;
  readonly identity: TmuxServerIdentity;
  /** `tmux -L <name> attach` (what a person runs to watch the members). */
  readonly attachCommand: string;
  /** True while the server process runs (it ends by itself once its last pane is gone). */
  isRunning(): boolean;
  /**
   * True while the server process runs and still answers on its socket with its own pid: false
   * once it has been told to exit (`kill-server` from anyone, its last pane gone), even before
   * its process has ended.
   */
  answers(): Promise<boolean>;
  /** Resolves once the server process has ended, or with false after `timeoutMs`. */
  waitForExit(timeoutMs: number): Promise<boolean>;
  /** Ends the server (and with it every pane) and waits for its process to exit. */
  stop(): Promise<void>;
  /** The synchronous form, for a last pass in `process.on('exit')`. */
  stopSync(): void;
}

/** Options of {@link startPrivateTmuxServer}. */
export interface StartPrivateTmuxServerOptions {
  tmuxPath: string;
  socketName: string;
  /** tmux configuration file (default `/dev/null`: the members' server behaves the same everywhere). */
  configFile: string;
  /** Argv prefix that ties the server's life to the lead (`setpriv --pdeathsig KILL --`), or `[]`. */
  deathSignalPrefix: readonly string[];
  /** Environment the server (and so every pane) starts from. */
  environment: NodeJS.ProcessEnv;
  /** How long the server may take to answer (default 5 000 ms). */
  startTimeoutMs?: number;
}

/**
 * Starts `tmux -L <socketName> -f <configFile> -D` as the lead's child (no daemon, so a
 * death-signal prefix can end it with the lead) and waits until it answers. Refuses a socket
 * name a live server already uses: that server belongs to someone else (or to a lead that
 * is still running).
 */
export async function startPrivateTmuxServer(
  options: StartPrivateTmuxServerOptions,
): Promise<PrivateTmuxServer> {
  const address = { socketName: options.socketName };
  const [existing, version] = await Promise.all([
    readExistingServer(new TmuxRunner(options.tmuxPath, address)),
    readTmuxVersion(options.tmuxPath),
  ]);
  // Once this server has ended, a `new-session` of the backend must fail, never start a stray
  // daemon server outside the lead's control (tmux 3.2 has -N for that).
  const noStartServer =
    !('error' in version) && (version.major > 3 || (version.major === 3 && version.minor >= 2));
  const runner = new TmuxRunner(options.tmuxPath, address, { noStartServer });
  if (existing !== undefined) {
    throw new BackendError({
      code: 'SPAWN_FAILED',
      message:
        `A tmux server already runs on socket ${existing.socketPath} (pid ${existing.serverPid}); ` +
        `muster starts its own private server and never reuses one. If no lead of this team is ` +
        `running, end it with \`tmux ${describeServerFlags(runner.address)} kill-server\`, or pass ` +
        `another socketName.`,
      details: { socketPath: existing.socketPath, serverPid: existing.serverPid },
    });
  }
  const argv = [
    ...options.deathSignalPrefix,
    options.tmuxPath,
    '-L',
    options.socketName,
    '-f',
    options.configFile,
    '-D',
  ];
  const [file, ...args] = argv as [string, ...string[]];
  const child = spawn(file, args, { stdio: 'ignore', detached: true, env: options.environment });
  child.unref();
  const exitedEarly = watchExit(child);
  const identity = await waitForServer(runner, child, exitedEarly, options.startTimeoutMs ?? 5_000);
  // tmux leaves its socket file behind; remove it once our server is gone, never another's.
  const removeSocketFile = (): void => {
    if (readServerIdentitySync(runner) === undefined) rmSync(identity.socketPath, { force: true });
  };
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      await runner.run(['kill-server']).catch(() => undefined);
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), 3_000);
      });
      const ended = await Promise.race([exitedEarly, timedOut]);
      clearTimeout(timer);
      if (ended === false) child.kill('SIGKILL');
    }
    removeSocketFile();
  };
  const stopSync = (): void => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    try {
      runner.runSync(['kill-server']);
    } catch {
      // Already gone.
    }
    removeSocketFile();
  };
  const isRunning = (): boolean => child.exitCode === null && child.signalCode === null;
  const waitForExit = async (timeoutMs: number): Promise<boolean> => {
    if (!isRunning()) return true;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    const ended = await Promise.race([exitedEarly.then(() => true as const), timedOut]);
    clearTimeout(timer);
    return ended;
  };
  return {
    runner,
    identity,
    isRunning,
    // Only tmux saying there is no server counts as "gone": a call that fails otherwise (a
    // timeout on a loaded machine) says nothing about a server whose process still runs.
    answers: async () =>
      isRunning() &&
      (await readServerIdentity(runner).then(
        (answer) => answer.serverPid === identity.serverPid,
        (error: unknown) => !(error instanceof TmuxCommandError && error.serverMissing),
      )),
    waitForExit,
    attachCommand: `tmux ${describeServerFlags(runner.address)} attach`,
    stop,
    stopSync,
  };
}

/**
 * The server that answers on the socket now, if any. A server that is exiting (after
 * `kill-server`, or once its last pane is gone) still accepts a connection and then drops it:
 * tmux says "server exited unexpectedly". Starting a new server then races the old one's exit,
 * so this waits (up to 3 s) until the old one no longer answers at all.
 */
async function readExistingServer(runner: TmuxRunner): Promise<TmuxServerIdentity | undefined> {
  const deadline = Date.now() + EXITING_SERVER_WAIT_MS;
  for (;;) {
    try {
      return await readServerIdentity(runner);
    } catch (error) {
      const exiting = error instanceof TmuxCommandError && /server exited/i.test(error.stderr);
      if (!exiting) return undefined;
      if (Date.now() > deadline) {
        throw new BackendError({
          code: 'SPAWN_FAILED',
          message:
            `The tmux server on \`${describeServerFlags(runner.address)}\` is exiting but still ` +
            `holds its socket after ${EXITING_SERVER_WAIT_MS} ms; a new private server cannot start ` +
            `there yet. Wait for it to end (or end it with \`tmux ${describeServerFlags(runner.address)} kill-server\`) and spawn again.`,
          cause: error,
        });
      }
      await delay(20);
    }
  }
}

/** How long a start waits for a previous server on the same socket to finish exiting. */
const EXITING_SERVER_WAIT_MS = 3_000;

function readServerIdentitySync(runner: TmuxRunner): TmuxServerIdentity | undefined {
  try {
    return parseServerIdentity(runner.runSync(['display-message', '-p', '#{pid} #{socket_path}']));
  } catch {
    return undefined;
  }
}

function watchExit(child: ChildProcess): Promise<string> {
  return new Promise((resolve) => {
    child.once('error', (error) => resolve(`could not be started: ${error.message}`));
    child.once('exit', (code, signal) =>
      resolve(`ended at once (${signal === null ? `exit code ${String(code)}` : signal})`),
    );
  });
}

async function waitForServer(
  runner: TmuxRunner,
  child: ChildProcess,
  exitedEarly: Promise<string>,
  timeoutMs: number,
): Promise<TmuxServerIdentity> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  let ended: string | undefined;
  void exitedEarly.then((why) => (ended = why));
  while (Date.now() < deadline && ended === undefined) {
    try {
      const identity = await readServerIdentity(runner);
      if (identity.serverPid === child.pid) return identity;
      lastError = new Error(`server pid ${identity.serverPid} is not the started ${child.pid}`);
    } catch (error) {
      lastError = error;
    }
    await delay(20);
  }
  if (ended === undefined) child.kill('SIGKILL');
  const why = ended ?? `did not answer within ${timeoutMs} ms (${String(lastError)})`;
  throw new BackendError({
    code: 'SPAWN_FAILED',
    message:
      `The private tmux server \`tmux ${describeServerFlags(runner.address)} -D\` ${why}. ` +
      `Check that \`${runner.tmuxPath} -V\` works and that the socket folder (TMUX_TMPDIR or /tmp) is writable.`,
    cause: lastError,
  });
}

/** Resolves after `milliseconds`. */
export function delay(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}
