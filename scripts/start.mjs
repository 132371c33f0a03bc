// `npm start`: sets everything up and runs the muster CLI on its main job. Installs the
// dependencies exactly as the lockfile pins them, builds the CLI and the packages it uses,
// then runs `muster` with the arguments given after `--` (`npm start -- doctor --root ~/.claude`).
//
// Without arguments it runs `muster watch`. On a fresh machine there is no team to watch
// yet, so it says so and runs `muster demo --watch` instead: a demo team in a new temporary
// folder, shown live (on a terminal; otherwise one frame is printed and it exits).
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

/** True when the default root (or --root/$MUSTER_HOME) holds at least one team. */
function hasTeams() {
  const result = spawnSync(process.execPath, [cli, 'team', 'list', '--json'], {
    encoding: 'utf8',
  });
  if (result.status !== 0) return false;
  try {
    return JSON.parse(result.stdout).teams.length > 0;
  } catch {
    return false;
  }
}

const args = process.argv.slice(2);
if (args.length > 0) process.exit(muster(args));

if (hasTeams()) process.exit(muster(['watch']));
console.log(
  '[muster] No team under ~/.muster yet (or $MUSTER_HOME), so here is a demo team instead: muster demo --watch.\n' +
    '[muster] Below, `muster …` means `npm start -- …` (or `node apps/cli/dist/cli.js …`).\n' +
    '[muster] Try `npm start -- --help`, or `npm start -- team create <name>` to start your own.',
);
process.exit(muster(['demo', '--watch']));
