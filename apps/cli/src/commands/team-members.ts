import { setTimeout as sleep } from 'node:timers/promises';
import { readFileSnapshot } from '@muster/file-lock';
import {
  createRootLayout,
  safeParseJsonFile,
  TeamConfigSchema,
  type TeamConfig,
} from '@muster/protocol';
import { closestName } from '@muster/mailbox';
import { TeamsError } from '@muster/teams';
import { CliError } from '../cli-error.js';

/** Pauses before re-reading a config that did not parse (about 0.75 s in all). */
const TORN_CONFIG_RETRY_MS = [50, 100, 200, 400];

/** A team's config, read without locks and without writing (commands only check names). */
export async function readTeamConfig(root: string, team: string): Promise<TeamConfig> {
  const file = createRootLayout(root).teamConfigPath(team);
  for (let attempt = 0; ; attempt += 1) {
    const snapshot = await readFileSnapshot(file);
    if (snapshot === undefined) {
      throw new TeamsError({
        code: 'TEAM_NOT_FOUND',
        message: `Team "${team}" has no config at ${file}. Check the name and --root.`,
        details: { team, root },
      });
    }
    const parsed = safeParseJsonFile(snapshot.text, TeamConfigSchema, file);
    if (parsed.success) return parsed.value;
    // Claude Code 2.1.330 rewrites config.json in place: a read can meet it half-written.
    if (attempt < TORN_CONFIG_RETRY_MS.length) {
      await sleep(TORN_CONFIG_RETRY_MS[attempt]!);
      continue;
    }
    throw new TeamsError({
      code: 'CORRUPT_FILE',
      message: `${parsed.error.message} Run "muster doctor" for details.`,
      cause: parsed.error,
      details: { team, file },
    });
  }
}

/**
 * Checks that `name` is a member of the team; the error names the members and the closest
 * match. `what` says which argument it came from (`--from`, `--agent`, …).
 */
export function requireMemberName(
  config: TeamConfig,
  team: string,
  name: string,
  what: string,
): string {
  const names = config.members.map((member) => member.name);
  if (names.includes(name)) return name;
  const suggestion = closestName(name, names);
  throw new CliError({
    code: 'NOT_FOUND',
    message:
      `${what} "${name}" is not a member of team "${team}" (members: ${names.join(', ')}).` +
      (suggestion ? ` Did you mean "${suggestion}"?` : ''),
    details: { team, name, members: names, ...(suggestion ? { suggestion } : {}) },
  });
}
