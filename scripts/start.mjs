// `npm start`: sets everything up and runs the muster CLI on its main job. Installs the
// dependencies exactly as the lockfile pins them, builds the CLI and the packages it uses,
// then runs `muster` with the arguments given after `--` (`npm start -- doctor --root ~/.claude`).
//
// Without arguments it runs `muster watch` on the one team under the root (or $MUSTER_TEAM).
// With several teams it lists them and says how to watch one; with teams that cannot be
// read it says what is wrong. On a fresh machine there is no team to watch yet, so it says
// so and runs `muster demo --watch` instead: a demo team in a new temporary folder, shown
// live (on a terminal; otherwise one frame is printed and it exits), and the folder is
// removed again when the dashboard ends.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { installDependencies, pnpm, repositoryRoot } from './pnpm.mjs';

const cli = path.join(repositoryRoot, 'apps', 'cli', 'dist', 'cli.js');

installDependencies();
pnpm(['exec', 'turbo', 'run', 'build', '--filter=@muster/cli...', '--output-logs=errors-only']);

/** Runs the built CLI with the terminal attached; returns its exit code. */
function muster(args) {
  const result = spawnSync(process.execPath, [cli, ...args], { stdio: 'inherit' });
  return result.status ?? 1;
}

/**
 * The teams under the default root ($MUSTER_HOME, else ~/.muster). A failure is reported and
 * ends `npm start`: showing the demo instead would hide what is wrong with the user's teams.
 */
function teamNames() {
  const result = spawnSync(process.execPath, [cli, 'team', 'list', '--json'], {
    encoding: 'utf8',
  });
  if (result.status === 0) {
    try {
      const listing = JSON.parse(result.stdout);
      return { names: listing.teams.map((team) => team.name), problems: listing.problems ?? [] };
    } catch {
      // Reported below.
    }
  }
  process.stderr.write(result.stderr);
  console.error(
    '[muster] Could not list the teams (see above). Fix that, or try the demo: npm start -- demo --watch',
  );
  process.exit(result.status || 1);
}

const args = process.argv.slice(2);
if (args.length > 0) process.exit(muster(args));

const { names: teams, problems } = teamNames();
if (teams.length === 0 && problems.length > 0) {
  // Teams are there but cannot be read: say so instead of showing a demo over them.
  for (const problem of problems) console.error(`[muster] ${problem.folder}: ${problem.reason}`);
  console.error('[muster] Run `npm start -- doctor` for details, or fix the files above.');
  process.exit(1);
}
if (teams.length === 1 || (teams.length > 1 && process.env.MUSTER_TEAM)) {
  process.exit(muster(['watch']));
}
if (teams.length > 1) {
  console.log(
    `[muster] There are ${teams.length} teams: ${teams.join(', ')}. Watch one with: npm start -- watch <team>\n` +
      '[muster] (or set MUSTER_TEAM). Here they are:',
  );
  process.exit(muster(['team', 'list']));
}
console.log(
  '[muster] No team under ~/.muster yet (or $MUSTER_HOME), so here is a team at work: muster demo --run -p.\n' +
    '[muster] A lead and two teammates build slugify() in a throwaway git repository. Their replies come\n' +
    '[muster] from a script (@muster/scripted-model, a test double), not a model; files, git, tests and team are real.\n' +
    '[muster] Below, `muster …` means `npm start -- …` (or `node apps/cli/dist/cli.js …`).',
);
const demoExit = muster(['demo', '--run', '-p']);
console.log(
  '[muster] Next: the event stream of the same run with `npm start -- demo --run -p --output-format stream-json`,\n' +
    '[muster] a team with every kind of state in the live dashboard with `npm start -- demo --watch`, and with a\n' +
    '[muster] key (ANTHROPIC_API_KEY) a real lead: `npm start -- run -p "<what to do>"`.',
);
process.exit(demoExit);
