// What the tmux backend borrows from the lifecycle part: the lead link members connect back
// to (one per team folder), the death-signal prefix for the private server, and cleanup.
import { execFile } from 'node:child_process';
import { BackendError } from './backend-error.js';

/** The part of the lead link the tmux backend uses. */
export interface TmuxLeadLink {
  readonly socketPath: string;
  waitForReady(
    agentId: string,
    options: { timeoutMs: number; signal?: AbortSignal },
  ): Promise<void>;
  close(): Promise<void>;
}

/** Something cleanup can end. */
interface Killable {
  kill(options?: { graceful?: boolean; deadlineMs?: number }): Promise<unknown>;
  readonly exited: Promise<unknown>;
}

let probedPrefix: Promise<string[]> | undefined;

/** Lead links, the death-signal prefix and cleanup, for one tmux backend. */
export class TmuxSpawnSupport {
  readonly #given: TmuxLeadLink | undefined;
  readonly #opened = new Map<string, Promise<TmuxLeadLink>>();

  constructor(given: TmuxLeadLink | undefined) {
    this.#given = given;
  }

  /** The given lead link, or the one this backend opened for the team folder. */
  linkFor(teamFolder: string): Promise<TmuxLeadLink> {
    if (this.#given !== undefined) return Promise.resolve(this.#given);
    return Promise.reject(
      new BackendError({
        code: 'INVALID_SPEC',
        message: `tmux backend: readiness 'connect-back' needs a lead link for ${teamFolder}; pass createTmuxBackend({ leadLink }) or use readiness 'external'.`,
      }),
    );
  }

  /** `setpriv --pdeathsig KILL --` when this machine's setpriv supports it, else `[]`. */
  deathSignalPrefix(): Promise<string[]> {
    probedPrefix ??= new Promise((resolve) => {
      if (process.platform !== 'linux') {
        resolve([]);
        return;
      }
      execFile('setpriv', ['--pdeathsig', 'KILL', '--', 'true'], { timeout: 5_000 }, (error) =>
        resolve(error === null ? ['setpriv', '--pdeathsig', 'KILL', '--'] : []),
      );
    });
    return probedPrefix;
  }

  /** Registers a member for the lead's cleanup on signals and crashes (lifecycle registry). */
  registerCleanup(_member: Killable): void {
    // Wired to the lifecycle cleanup registry once it is available.
  }

  /** Closes the lead links this backend opened (never a given one). */
  async close(): Promise<void> {
    const links = [...this.#opened.values()];
    this.#opened.clear();
    await Promise.allSettled(links.map(async (link) => (await link).close()));
  }
}
