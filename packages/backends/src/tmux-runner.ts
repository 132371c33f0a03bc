// Runs tmux commands against one server, always as an argv (never through a shell), so no
// quoting can change what runs and no key sequence is ever typed into a pane (R18).
import { execFile, execFileSync } from 'node:child_process';

/** How long one tmux client call may take before it counts as failed. */
const TMUX_CALL_TIMEOUT_MS = 10_000;

/** Which tmux server to talk to: a socket name (`-L`) or a socket path (`-S`). */
export type TmuxServerAddress = { socketName: string } | { socketPath: string };

/** A failed tmux call: the arguments, tmux's own message and the exit code. */
export class TmuxCommandError extends Error {
  readonly args: readonly string[];
  readonly stderr: string;
  readonly exitCode: number | null;

  constructor(args: readonly string[], stderr: string, exitCode: number | null, cause?: unknown) {
    const said = stderr.trim() === '' ? `exit code ${String(exitCode)}` : stderr.trim();
    super(`tmux ${args.join(' ')} failed: ${said}`, cause === undefined ? undefined : { cause });
    this.name = 'TmuxCommandError';
    this.args = args;
    this.stderr = stderr;
    this.exitCode = exitCode;
  }

  /** True when tmux said the server is not running (or its socket is gone). */
  get serverMissing(): boolean {
    return /no server running|error connecting to|server exited/i.test(this.stderr);
  }

  /** True when tmux said the target pane, window or session does not exist. */
  get targetMissing(): boolean {
    return /can't find|no such (pane|window|session)/i.test(this.stderr);
  }

  /** True when the server runs but holds no session (`list-panes -a` then has no target). */
  get noPanes(): boolean {
    return /no current target|no sessions/i.test(this.stderr);
  }

  /** True when tmux refused a split for lack of room. */
  get noSpace(): boolean {
    return /no space for new pane|pane too small|size too small/i.test(this.stderr);
  }
}

/** The global flags that select a server (`-L name` or `-S path`). */
export function serverFlags(address: TmuxServerAddress): string[] {
  return 'socketName' in address ? ['-L', address.socketName] : ['-S', address.socketPath];
}

/** A shell-ready rendering of the server flags, for commands shown to people. */
export function describeServerFlags(address: TmuxServerAddress): string {
  return serverFlags(address).map(quoteForShell).join(' ');
}

/** Quotes one word for a POSIX shell (only used in text shown to people, never executed). */
export function quoteForShell(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * Protects one argument from tmux's own command splitting: tmux ends a command at any argument
 * that ends with `;` (even after `--`, so `sh -c 'a;'` would lose its `;`); `\;` at the end
 * stands for a literal `;`. Every argument muster passes goes through this.
 */
export function escapeTmuxArgument(argument: string): string {
  return argument.endsWith(';') ? `${argument.slice(0, -1)}\\;` : argument;
}

/** What runs tmux commands against one server: a client process per call, or a control-mode client. */
export interface TmuxCommandRunner {
  /** Runs one command and resolves with its output. */
  run(args: readonly string[]): Promise<string>;
  /** Runs several commands as one (`a ; b`); tmux stops at the first that fails. */
  runSequence(commands: readonly (readonly string[])[]): Promise<string>;
}

/** Runs tmux commands against one server, one tmux client process per call. */
export class TmuxRunner implements TmuxCommandRunner {
  readonly tmuxPath: string;
  readonly address: TmuxServerAddress;
  /** Pass `-N` (tmux 3.2+): a command such as `new-session` never starts a server of its own. */
  readonly noStartServer: boolean;

  constructor(
    tmuxPath: string,
    address: TmuxServerAddress,
    options: { noStartServer?: boolean } = {},
  ) {
    this.tmuxPath = tmuxPath;
    this.address = address;
    this.noStartServer = options.noStartServer ?? false;
  }

  /** Runs `tmux <server flags> <args>` and resolves with its standard output. */
  run(args: readonly string[]): Promise<string> {
    return this.runSequence([args]);
  }

  /** Runs several commands in one tmux call (`a ; b`); tmux stops at the first that fails. */
  runSequence(commands: readonly (readonly string[])[]): Promise<string> {
    const args = commands.flatMap((command, index) => [
      ...(index === 0 ? [] : [';']),
      ...command.map(escapeTmuxArgument),
    ]);
    const fullArgs = [...serverFlags(this.address), ...(this.noStartServer ? ['-N'] : []), ...args];
    return new Promise((resolve, reject) => {
      execFile(
        this.tmuxPath,
        fullArgs,
        { timeout: TMUX_CALL_TIMEOUT_MS, encoding: 'utf8', env: clientEnvironment() },
        (error, stdout, stderr) => {
          if (error === null) {
            resolve(stdout);
            return;
          }
          const code = typeof error.code === 'number' ? error.code : null;
          const said = stderr === '' && typeof error.code === 'string' ? error.message : stderr;
          reject(new TmuxCommandError(args, said, code, error));
        },
      );
    });
  }

  /** The synchronous form, for `isAlive()` and for the last cleanup pass in `'exit'`. */
  runSync(args: readonly string[]): string {
    const fullArgs = [...serverFlags(this.address), ...args.map(escapeTmuxArgument)];
    try {
      return execFileSync(this.tmuxPath, fullArgs, {
        timeout: TMUX_CALL_TIMEOUT_MS,
        encoding: 'utf8',
        env: clientEnvironment(),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (error) {
      const failure = error as { status?: number | null; stderr?: string | Buffer };
      const stderr = failure.stderr === undefined ? String(error) : String(failure.stderr);
      throw new TmuxCommandError(args, stderr, failure.status ?? null, error);
    }
  }
}

/**
 * The environment of a tmux client call: the lead's, without `TMUX`/`TMUX_PANE`, so the
 * explicit `-L`/`-S` flags alone decide the server and no "current pane" leaks in.
 */
export function clientEnvironment(): NodeJS.ProcessEnv {
  const environment = { ...process.env };
  delete environment.TMUX;
  delete environment.TMUX_PANE;
  return environment;
}
