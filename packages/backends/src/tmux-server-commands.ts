// The commands of one tmux server as the backend sends them: through the server's control-mode
// client while that is open (a line on a pipe), otherwise one tmux client process per call.
// The control-mode client is attached once the backend's session exists, is checked to reach
// the recorded server pid, ends with that server or session, and is never re-pointed: a new
// server gets a new `TmuxServerCommands`.
import { TmuxControlClient } from './tmux-control-client.js';
import { TmuxCommandError, type TmuxCommandRunner, type TmuxRunner } from './tmux-runner.js';
import type { PrivateTmuxServer } from './tmux-server.js';

/** Commands of one server (identified by its pid), with an optional control-mode client. */
export class TmuxServerCommands implements TmuxCommandRunner {
  readonly runner: TmuxRunner;
  readonly serverPid: number;
  readonly #onProblem: (problem: string) => void;
  #control: TmuxControlClient | undefined;
  #opening: Promise<void> | undefined;
  #attempted = false;
  #closed = false;

  /** `onProblem` is told (once) when the control-mode client cannot be opened. */
  constructor(runner: TmuxRunner, serverPid: number, onProblem: (problem: string) => void) {
    this.runner = runner;
    this.serverPid = serverPid;
    this.#onProblem = onProblem;
  }

  /** The open control-mode client, if any. */
  get control(): TmuxControlClient | undefined {
    return this.#control?.isOpen === true ? this.#control : undefined;
  }

  /** Runs one command (control-mode client when open, else a client process). */
  run(args: readonly string[]): Promise<string> {
    return (this.control ?? this.runner).run(args);
  }

  /** Runs a sequence (`a ; b`) the same way. */
  runSequence(commands: readonly (readonly string[])[]): Promise<string> {
    return (this.control ?? this.runner).runSequence(commands);
  }

  /**
   * Starts attaching the control-mode client to `sessionId` (once per server; not awaited here:
   * {@link ready} waits for it). A failure is reported through `onProblem` and calls keep going
   * through client processes.
   */
  attach(tmuxPath: string, sessionId: string): void {
    if (this.#attempted || this.#closed) return;
    this.#attempted = true;
    this.#opening = TmuxControlClient.open({
      tmuxPath,
      address: this.runner.address,
      sessionId,
      serverPid: this.serverPid,
    }).then(
      async (client) => {
        if (this.#closed) await client.close();
        else this.#control = client;
      },
      (error: unknown) => {
        this.#onProblem(
          `tmux could not keep a control-mode client on server pid ${this.serverPid} (${error instanceof Error ? error.message : String(error)}); each tmux command now starts its own client, which makes spawns slower (tmux 3.2 or newer is needed for \`attach-session -f ignore-size,no-output\`).`,
        );
      },
    );
  }

  /**
   * Resolves once a started attach has finished (either way), or after `timeoutMs`: a server
   * that does not answer the attach (stopped, overloaded) is asked with client processes meanwhile.
   */
  async ready(timeoutMs = 1_000): Promise<void> {
    if (this.#opening === undefined) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.#opening,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
      }),
    ]);
    clearTimeout(timer);
  }

  /**
   * Whether the server still answers as itself, asked through the control-mode client: true or
   * false, or undefined when no control-mode client is open (ask with a client process then).
   * A request that times out counts as answering, as a slow server is still the same server.
   * Asked twice, one after the other: a server told to exit (`kill-server`) may still answer
   * the connected client once before it handles its own SIGTERM, never after.
   */
  async answersThroughControl(): Promise<boolean | undefined> {
    const control = this.control;
    if (control === undefined) return undefined;
    try {
      for (let round = 0; round < 2; round++) {
        const answer = await control.run(['display-message', '-p', '#{pid}']);
        if (Number(answer.trim()) !== this.serverPid) return false;
      }
      return true;
    } catch (error) {
      if (!control.isOpen) return undefined;
      if (error instanceof TmuxCommandError && /no answer|not answered/.test(error.stderr)) {
        return true;
      }
      // Any other answer (no current session: the server is shutting down): ask a new client.
      return undefined;
    }
  }

  /**
   * Whether the private server still answers as itself: through the control-mode client when
   * that is open (no new process), else with a client process (`PrivateTmuxServer.answers`).
   */
  async answers(server: PrivateTmuxServer): Promise<boolean> {
    if (!server.isRunning()) return false;
    return (await this.answersThroughControl()) ?? (await server.answers());
  }

  /**
   * True when `error` says the server is gone: tmux said no server runs, or the error came from
   * a control-mode client that has ended (its server or session gone).
   */
  isServerGoneError(error: unknown): boolean {
    if (!(error instanceof TmuxCommandError)) return false;
    if (error.serverMissing) return true;
    return (
      this.#control !== undefined &&
      !this.#control.isOpen &&
      error.stderr.includes('control-mode client')
    );
  }

  /** Closes the control-mode client (waiting for a pending attach first). */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#opening;
    await this.#control?.close();
  }

  /** The synchronous form, for a last pass in `process.on('exit')`. */
  closeSync(): void {
    this.#closed = true;
    this.#control?.closeSync();
  }
}
