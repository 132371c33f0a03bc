// A persistent tmux control-mode client (`tmux -C attach-session -f ignore-size,no-output`)
// that one backend owns, so that a command costs one line on a pipe instead of a new tmux
// client process (R17). tmux answers each command line in `%begin … %end` / `%error` blocks, in
// order; a line that fails part-way skips the rest of its commands without a block for them,
// so every request is followed by a sentinel `display-message` whose block ends the request.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import {
  clientEnvironment,
  serverFlags,
  TmuxCommandError,
  type TmuxCommandRunner,
  type TmuxServerAddress,
} from './tmux-runner.js';

/** How long one control-mode request may wait for its answer (as long as one client call). */
const CONTROL_REQUEST_TIMEOUT_MS = 10_000;

/**
 * Quotes one argument for tmux's command parser (control mode reads command lines, not argv):
 * double quotes with `\`, `"`, `$`, newline and carriage return escaped, and a leading `~`
 * escaped (tmux expands it even inside double quotes). `;` inside quotes is literal.
 */
export function quoteForTmuxParser(argument: string): string {
  const escaped = argument
    .replace(/[\\"$]/g, (character) => `\\${character}`)
    .replace(/\n/g, '\\n')
    .replace(/\r/g, '\\r');
  return `"${escaped.startsWith('~') ? `\\${escaped}` : escaped}"`;
}

/** The control-mode line of a command sequence (`a ; b ; c`). */
export function controlLine(commands: readonly (readonly string[])[]): string {
  return commands.map((command) => command.map(quoteForTmuxParser).join(' ')).join(' ; ');
}

interface Block {
  error: boolean;
  lines: string[];
}

interface PendingRequest {
  args: readonly string[];
  sentinel: string;
  blocks: Block[];
  settled: boolean;
  resolve: (output: string) => void;
  reject: (error: Error) => void;
  timer?: NodeJS.Timeout;
}

/** Options of {@link TmuxControlClient.open}. */
export interface TmuxControlClientOptions {
  tmuxPath: string;
  address: TmuxServerAddress;
  /** The session to attach to (`$N`); the client ends when that session is destroyed. */
  sessionId: string;
  /** The server the client must reach (`#{pid}`); any other server is refused. */
  serverPid: number;
}

/**
 * One control-mode client of one server. {@link TmuxControlClient.open} attaches it and checks
 * that it reached the expected server; it ends by itself when that server or session ends
 * (`isOpen` turns false, pending requests reject) and is never silently re-pointed elsewhere.
 */
export class TmuxControlClient implements TmuxCommandRunner {
  readonly serverPid: number;
  readonly #child: ChildProcess;
  readonly #pending: PendingRequest[] = [];
  readonly #exited: Promise<void>;
  #open = true;
  #why = 'the control-mode client has not ended';
  #block: (Block & { number: string; ours: boolean }) | undefined;
  #counter = 0;

  private constructor(child: ChildProcess, serverPid: number) {
    this.#child = child;
    this.serverPid = serverPid;
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    lines.on('line', (line) => this.#onLine(line));
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-400);
    });
    this.#exited = new Promise((resolve) => {
      const end = (why: string): void => {
        if (this.#open) this.#end(`${why}${stderr.trim() === '' ? '' : `: ${stderr.trim()}`}`);
        resolve();
      };
      child.once('error', (error) => end(`could not run (${error.message})`));
      child.once('exit', (code, signal) =>
        end(`ended (${signal === null ? `exit code ${String(code)}` : signal})`),
      );
    });
    child.stdin?.on('error', () => undefined);
    child.unref();
  }

  /** Starts the client, attached to `sessionId`, and checks it answers as `serverPid`. */
  static async open(options: TmuxControlClientOptions): Promise<TmuxControlClient> {
    const child = spawn(
      options.tmuxPath,
      [
        ...serverFlags(options.address),
        '-C',
        'attach-session',
        '-f',
        'ignore-size,no-output',
        '-t',
        options.sessionId,
      ],
      { stdio: ['pipe', 'pipe', 'pipe'], env: clientEnvironment() },
    );
    const client = new TmuxControlClient(child, options.serverPid);
    try {
      const answer = (await client.run(['display-message', '-p', '#{pid}'])).trim();
      if (Number(answer) !== options.serverPid) {
        throw new TmuxCommandError(
          ['display-message'],
          `the control-mode client reached server pid ${answer}, not ${options.serverPid}`,
          null,
        );
      }
    } catch (error) {
      await client.close();
      throw error;
    }
    return client;
  }

  /** True until the client has ended (its server or session gone, or `close()`). */
  get isOpen(): boolean {
    return this.#open;
  }

  /** The process id of the client (a child of the lead). */
  get pid(): number | undefined {
    return this.#child.pid;
  }

  /** Runs one command; resolves with its output lines (newline-terminated, as a client prints them). */
  run(args: readonly string[]): Promise<string> {
    return this.runSequence([args]);
  }

  /** Runs several commands on one line (`a ; b`); tmux stops at the first that fails. */
  runSequence(commands: readonly (readonly string[])[]): Promise<string> {
    const args = commands.flatMap((command, index) => [...(index === 0 ? [] : [';']), ...command]);
    if (!this.#open) return Promise.reject(this.#closedError(args));
    // A server that left a request unanswered past its timeout (stopped, overloaded) is not
    // asked again until that answer arrives: each call would only wait out its own timeout.
    if (this.#pending.some((request) => request.settled)) {
      return Promise.reject(
        new TmuxCommandError(
          args,
          `the tmux server (pid ${this.serverPid}) has not answered an earlier request within ${CONTROL_REQUEST_TIMEOUT_MS} ms (control-mode client); try again later`,
          null,
        ),
      );
    }
    this.#counter += 1;
    const sentinel = `muster-control-end-${this.#counter}`;
    return new Promise((resolve, reject) => {
      const request: PendingRequest = {
        args,
        sentinel,
        blocks: [],
        settled: false,
        resolve,
        reject,
      };
      // A request that times out stays queued: its answer still comes, in order, and is dropped.
      request.timer = setTimeout(() => {
        request.settled = true;
        reject(
          new TmuxCommandError(
            args,
            `no answer from the tmux server within ${CONTROL_REQUEST_TIMEOUT_MS} ms (control-mode client)`,
            null,
          ),
        );
      }, CONTROL_REQUEST_TIMEOUT_MS);
      this.#pending.push(request);
      this.#child.stdin?.write(
        `${controlLine(commands)}\n${controlLine([['display-message', '-p', sentinel]])}\n`,
      );
    });
  }

  /** Ends the client (closing its input detaches it) and waits for its process to exit. */
  async close(): Promise<void> {
    if (this.#open) this.#end('the control-mode client was closed');
    this.#child.stdin?.end();
    let timer: NodeJS.Timeout | undefined;
    const exited = await Promise.race([
      this.#exited.then(() => true),
      new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), 2_000);
      }),
    ]);
    clearTimeout(timer);
    if (!exited) this.#child.kill('SIGKILL');
  }

  /** The synchronous form, for a last pass in `process.on('exit')`. */
  closeSync(): void {
    if (this.#open) this.#end('the control-mode client was closed');
    if (this.#child.exitCode === null && this.#child.signalCode === null) this.#child.kill();
  }

  #onLine(line: string): void {
    const block = this.#block;
    if (block === undefined) {
      const begin = /^%begin \d+ (\d+) (\d+)$/.exec(line);
      if (begin !== null) {
        this.#block = {
          number: begin[1] as string,
          ours: begin[2] === '1',
          error: false,
          lines: [],
        };
      }
      // Anything else outside a block is a notification (%exit, %window-add, …): not an answer.
      return;
    }
    const end = /^%(end|error) \d+ (\d+) \d+$/.exec(line);
    if (end === null || end[2] !== block.number) {
      block.lines.push(line);
      return;
    }
    this.#block = undefined;
    if (block.ours) this.#onBlock({ error: end[1] === 'error', lines: block.lines });
  }

  #onBlock(block: Block): void {
    const request = this.#pending[0];
    if (request === undefined) return;
    if (block.error || block.lines.length !== 1 || block.lines[0] !== request.sentinel) {
      request.blocks.push(block);
      return;
    }
    this.#pending.shift();
    clearTimeout(request.timer);
    if (request.settled) return;
    request.settled = true;
    const failed = request.blocks.find((candidate) => candidate.error);
    if (failed !== undefined) {
      request.reject(new TmuxCommandError(request.args, failed.lines.join('\n'), 1));
      return;
    }
    request.resolve(
      request.blocks.flatMap((candidate) => candidate.lines.map((text) => `${text}\n`)).join(''),
    );
  }

  #end(why: string): void {
    this.#open = false;
    this.#why = why;
    for (const request of this.#pending.splice(0)) {
      clearTimeout(request.timer);
      if (!request.settled) request.reject(this.#closedError(request.args));
      request.settled = true;
    }
  }

  #closedError(args: readonly string[]): TmuxCommandError {
    return new TmuxCommandError(
      args,
      `the control-mode client of server pid ${this.serverPid} ${this.#why}`,
      null,
    );
  }
}
