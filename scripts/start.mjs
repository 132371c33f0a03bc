// `npm start`: sets everything up and runs the muster CLI on its main job, a team at work.
// Installs the dependencies exactly as the lockfile pins them, builds the CLI and the packages
// it uses, then runs `muster` with the arguments given after `--` (`npm start -- doctor`), in
// the folder `npm start` was typed in (npm's INIT_CWD), so relative paths mean what they say.
//
// Without arguments it leads a team:
// - on a terminal with a model key (ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN): `muster run`,
//   the interactive lead, in that folder;
// - on a terminal without a key: `muster demo --run`, the same app on the offline scripted
//   demo (a throwaway git repository; the replies come from @muster/scripted-model, a test
//   double, and every screen says so);
// - without a terminal (CI, a pipe): `muster demo --run -p`, the demo headless, its story
//   printed line by line. A key is not used here: a real model is never started unwatched.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { installDependencies, pnpm, repositoryRoot } from './pnpm.mjs';

const cli = path.join(repositoryRoot, 'apps', 'cli', 'dist', 'cli.js');
const workingDirectory = process.env.INIT_CWD || process.cwd();

installDependencies();
pnpm(['exec', 'turbo', 'run', 'build', '--filter=@muster/cli...', '--output-logs=errors-only']);

/** Runs the built CLI with the terminal attached; returns its exit code. */
function muster(args) {
  const result = spawnSync(process.execPath, [cli, ...args], {
    stdio: 'inherit',
    cwd: workingDirectory,
  });
  return result.status ?? 1;
}

const args = process.argv.slice(2);
if (args.length > 0) process.exit(muster(args));

const onTerminal = process.stdin.isTTY === true && process.stdout.isTTY === true;
const hasKey = Boolean(
  process.env.ANTHROPIC_API_KEY?.trim() || process.env.ANTHROPIC_AUTH_TOKEN?.trim(),
);

if (onTerminal && hasKey) {
  console.log(
    `[muster] A model key is set: leading a team in ${workingDirectory} (muster run).\n` +
      '[muster] Type what the team should do and press Enter; Ctrl-C shuts the team down. The offline\n' +
      '[muster] demo instead: npm start -- demo --run',
  );
  process.exit(muster(['run']));
}

if (onTerminal) {
  console.log(
    '[muster] No model key (ANTHROPIC_API_KEY), so here is the scripted demo team: muster demo --run.\n' +
      '[muster] A lead and three teammates add slugify() to a throwaway git repository. Their replies\n' +
      '[muster] come from a script (@muster/scripted-model, a test double), not a model; files, git,\n' +
      '[muster] tests and team are real. Press Enter to send the prompt; Ctrl-C ends it.',
  );
  process.exit(muster(['demo', '--run']));
}

console.log(
  '[muster] No terminal, so here is the scripted demo team headless: muster demo --run -p.\n' +
    '[muster] A lead and three teammates add slugify() to a throwaway git repository. Their replies come\n' +
    '[muster] from a script (@muster/scripted-model, a test double), not a model; files, git, tests and team are real.\n' +
    '[muster] Below, `muster …` means `npm start -- …` (or `node apps/cli/dist/cli.js …`).',
);
const demoExit = muster(['demo', '--run', '-p']);
console.log(
  '[muster] Next: in a terminal, `npm start` (or `npm start -- demo --run`) runs this team in the\n' +
    '[muster] interactive app, where you answer its permission and plan requests; the event stream of the\n' +
    '[muster] same run: `npm start -- demo --run -p --output-format stream-json`; the dashboard of a\n' +
    '[muster] team on disk: `npm start -- watch`; and with a key (ANTHROPIC_API_KEY) a real lead:\n' +
    '[muster] `npm start -- run`.',
);
process.exit(demoExit);
