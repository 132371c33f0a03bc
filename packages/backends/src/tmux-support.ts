// What the tmux backend borrows from the lifecycle part: the team's shared lead link that
// members connect back to, the death-signal prefix for the private server, and the
// process-wide cleanup registry.
import { acquireLeadLink } from './lead-link-shared.js';
import { deathSignalPrefix } from './process-control.js';

/** The part of the lead link the tmux backend uses. */
export interface TmuxLeadLink {
  readonly socketPath: string;
  waitForReady(
    agentId: string,
    options: { timeoutMs: number; signal?: AbortSignal },
  ): Promise<void>;
  /** The member's link variables, with a new secret the link now expects (`LeadLink.memberEnvironment`). */
  memberEnvironment(agentId: string): Record<string, string>;
  close(): Promise<void>;
}

/** Lead links and the death-signal prefix, for one tmux backend. */
export class TmuxSpawnSupport {
  readonly #given: TmuxLeadLink | undefined;
  readonly #acquired = new Map<string, Promise<TmuxLeadLink>>();

  constructor(given: TmuxLeadLink | undefined) {
    this.#given = given;
  }

  /** The given lead link, or the team folder's shared one (one reference per backend). */
  linkFor(teamFolder: string): Promise<TmuxLeadLink> {
    if (this.#given !== undefined) return Promise.resolve(this.#given);
    let link = this.#acquired.get(teamFolder);
    if (link === undefined) {
      link = acquireLeadLink({ teamFolder });
      this.#acquired.set(teamFolder, link);
      link.catch(() => this.#acquired.delete(teamFolder));
    }
    return link;
  }

  /** `setpriv --pdeathsig KILL --` when this machine's setpriv supports it, else `[]`. */
  deathSignalPrefix(): string[] {
    return deathSignalPrefix();
  }

  /** Gives back the lead links this backend acquired (never a given one). */
  async close(): Promise<void> {
    const links = [...this.#acquired.values()];
    this.#acquired.clear();
    await Promise.allSettled(links.map(async (link) => (await link).close()));
  }
}
