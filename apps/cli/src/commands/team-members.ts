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

/** A team's config, read without locks and without writing (commands only check names). */
export async function readTeamConfig(root: string, team: string): Promise<TeamConfig> {
  const file = createRootLayout(root).teamConfigPath(team);
  const snapshot = await readFileSnapshot(file);
  if (snapshot === undefined) {
    throw new TeamsError({
      code: 'TEAM_NOT_FOUND',
      message: `Team "${team}" has no config at ${file}. Check the name and --root.`,
      details: { team, root },
    });
  }
  const parsed = safeParseJsonFile(snapshot.text, TeamConfigSchema, file);
  if (!parsed.success) {
    throw new TeamsError({
      code: 'CORRUPT_FILE',
      message: `${parsed.error.message} Run "muster doctor" for details.`,
      cause: parsed.error,
      details: { team, file },
    });
  }
  return parsed.value;
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
