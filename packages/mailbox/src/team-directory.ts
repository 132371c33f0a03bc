import {
  createRootLayout,
  parseAgentId,
  safeParseJsonFile,
  TEAM_LEAD_NAME,
  TEAM_PROTOCOL_VERSION_V2,
  TeamConfigSchema,
  teamDialect,
  type ProtocolDialect,
  type TeamConfig,
} from '@muster/protocol';
import { MailboxError } from './mailbox-error.js';
import { RootGuard } from './safe-files.js';

/**
 * How a team's inboxes are written and delivered: `v1` entries (Claude Code 2.1.45) or `v2`
 * (with `msgV`, `msg_id`, `type`); delivered entries marked read in place (`mark-read`:
 * 2.1.45 teams and muster's own teams) or taken out of the inbox (`remove`: a Claude Code
 * 2.1.330 session team, whose readers delete what they deliver).
 */

/** How long a team config that is not JSON is read again before it is judged corrupt. */
const HALF_WRITTEN_CONFIG_GRACE_MS = 250;
export interface TeamSpeech {
  dialect: ProtocolDialect;
  delivery: 'mark-read' | 'remove';
}

/** Reads a team's config (re-read only when the file changed) for names, lead and colors. */
export class TeamDirectory {
  private readonly configPath: string;
  private readonly guard: RootGuard;
  private cached: { key: string; config: TeamConfig } | undefined;

  constructor(
    root: string,
    private readonly team: string,
  ) {
    const layout = createRootLayout(root);
    this.configPath = layout.teamConfigPath(team);
    this.guard = new RootGuard(layout.root);
  }

  /**
   * The config, or undefined when the team has none. Throws `INVALID_TEAM_CONFIG`. Re-read
   * only when the file's identity (inode, size, mtime) changed: one `stat` per call.
   */
  async read(): Promise<TeamConfig | undefined> {
    // Never through a symbolic link below the root (`UNSAFE_PATH` instead).
    const before = this.guard.check(this.configPath);
    if (before === undefined) return undefined;
    const key = `${before.ino}:${before.size}:${before.mtimeMs}`;
    if (this.cached?.key === key) return this.cached.config;
    // Claude Code rewrites its config in place (not by rename): a read may catch it half
    // written. Text that is not JSON is read again for a moment before it is judged corrupt.
    const deadline = Date.now() + HALF_WRITTEN_CONFIG_GRACE_MS;
    let retried = false;
    let result: ReturnType<typeof safeParseJsonFile<typeof TeamConfigSchema>>;
    for (;;) {
      const read = this.guard.readText(this.configPath);
      if (read === undefined) return undefined;
      result = safeParseJsonFile(read.text, TeamConfigSchema, this.configPath);
      if (result.success || result.error.code !== 'INVALID_JSON' || Date.now() >= deadline) break;
      retried = true;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    if (!result.success) {
      throw new MailboxError({
        code: 'INVALID_TEAM_CONFIG',
        message: `${result.error.message} Repair the team config (or recreate the team) and retry.`,
        cause: result.error,
        details: { configPath: this.configPath, team: this.team },
      });
    }
    // A config read again is newer than the identity taken before it: not cached under that.
    if (!retried) this.cached = { key, config: result.value };
    return result.value;
  }

  /** The config; `UNKNOWN_TEAM` when it is missing. */
  async require(purpose: string): Promise<TeamConfig> {
    const config = await this.read();
    if (config !== undefined) return config;
    throw new MailboxError({
      code: 'UNKNOWN_TEAM',
      message:
        `Cannot ${purpose}: the team "${this.team}" has no config at ${this.configPath}. ` +
        "Create the team first, check the team name and root, or use recipientCheck: 'none' " +
        'to write inboxes without a team config.',
      details: { team: this.team, configPath: this.configPath },
    });
  }

  /** Checks that `recipient` is a member; `UNKNOWN_RECIPIENT` names the closest member. */
  async requireMember(recipient: string): Promise<void> {
    const config = await this.require(`send to "${recipient}"`);
    const names = config.members.map((member) => member.name);
    if (names.includes(recipient)) return;
    const suggestion = closestName(recipient, names);
    throw new MailboxError({
      code: 'UNKNOWN_RECIPIENT',
      message:
        `No member named "${recipient}" in team "${this.team}" (members: ${names.join(', ') || 'none'}).` +
        (suggestion === undefined ? '' : ` Did you mean "${suggestion}"?`) +
        ' Send to a current member, or pass { allowUnknownRecipient: true } to write to an ' +
        'inbox that no member reads yet.',
      details: { recipient, team: this.team, members: names, suggestion },
    });
  }

  /** The lead's name (from `leadAgentId`), or `team-lead` without a config. */
  async leadName(): Promise<string> {
    const config = await this.read().catch(() => undefined);
    if (config === undefined) return TEAM_LEAD_NAME;
    return parseAgentId(config.leadAgentId)?.agentName ?? TEAM_LEAD_NAME;
  }

  /**
   * The team's dialect and delivery, from its config: `v2` for `protocolVersion: 2` (muster)
   * or a `leadProcess` (Claude Code 2.1.330, delivered by removal); `v1` otherwise and when
   * there is no config. Throws `INVALID_TEAM_CONFIG` for a config that does not parse.
   */
  async speech(): Promise<TeamSpeech> {
    const config = await this.read();
    const dialect = teamDialect(config);
    const record = (config ?? {}) as { protocolVersion?: unknown; leadProcess?: unknown };
    const claudeCodeSession =
      dialect === 'v2' &&
      record.protocolVersion !== TEAM_PROTOCOL_VERSION_V2 &&
      typeof record.leadProcess === 'object' &&
      record.leadProcess !== null;
    return { dialect, delivery: claudeCodeSession ? 'remove' : 'mark-read' };
  }

  /** A member's color (the lead has none); undefined when unknown. */
  async colorOf(name: string): Promise<string | undefined> {
    const config = await this.read();
    return config?.members.find((member) => member.name === name)?.color;
  }
}

/** The member name nearest to `name` by edit distance, when it is plausibly a typo. */
export function closestName(name: string, candidates: readonly string[]): string | undefined {
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (best === undefined || distance < best.distance) best = { candidate, distance };
  }
  if (best === undefined) return undefined;
  const tolerance = Math.max(2, Math.floor(Math.max(name.length, best.candidate.length) / 3));
  return best.distance <= tolerance ? best.candidate : undefined;
}

/** Levenshtein distance. */
export function editDistance(left: string, right: string): number {
  let previous = Array.from({ length: right.length + 1 }, (_, index) => index);
  for (let row = 1; row <= left.length; row += 1) {
    const current = [row];
    for (let column = 1; column <= right.length; column += 1) {
      const substitution = previous[column - 1]! + (left[row - 1] === right[column - 1] ? 0 : 1);
      current.push(Math.min(previous[column]! + 1, current[column - 1]! + 1, substitution));
    }
    previous = current;
  }
  return previous[right.length]!;
}
