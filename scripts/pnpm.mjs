// Runs pnpm at the exact version pinned in package.json's packageManager field. When pnpm
// is not on PATH (a machine with only Node and npm), it runs it through npx instead and
// says so: nothing is installed globally.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repositoryRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const packageJson = JSON.parse(readFileSync(path.join(repositoryRoot, 'package.json'), 'utf8'));
export const pnpmVersion = packageJson.packageManager.replace(/^pnpm@/, '');

let command;
/**
 * The command that runs the pinned pnpm: `pnpm` when that version is on PATH, otherwise
 * `npx --yes pnpm@<version>` (said once).
 */
export function resolvePnpm() {
  if (command) return command;
  const probe = spawnSync('pnpm', ['--version'], { encoding: 'utf8' });
  if (probe.status === 0 && probe.stdout.trim() === pnpmVersion) {
    command = ['pnpm'];
  } else {
    const found = probe.status === 0 ? `pnpm ${probe.stdout.trim()}` : 'no pnpm';
    console.log(`[muster] ${found} on PATH; using pnpm ${pnpmVersion} through npx.`);
    command = ['npx', '--yes', `pnpm@${pnpmVersion}`];
  }
  return command;
}

/** Announces `pnpm args…` and returns the executable, its arguments and spawn options. */
function pnpmInvocation(args, stdio, extraEnvironment = {}) {
  const [executable, ...prefix] = resolvePnpm();
  console.log(`[muster] pnpm ${args.join(' ')}`);
  return [
    executable,
    [...prefix, ...args],
    {
      cwd: repositoryRoot,
      stdio,
      env: {
        ...process.env,
        TURBO_TELEMETRY_DISABLED: '1',
        DO_NOT_TRACK: '1',
        ...extraEnvironment,
      },
    },
  ];
}

/** Runs pnpm with the arguments in the repository root; exits the process on failure. */
export function pnpm(args, options = {}) {
  const result = spawnSync(...pnpmInvocation(args, 'inherit', options.env));
  if (result.status !== 0) {
    console.error(
      `[muster] pnpm ${args.join(' ')} failed (exit ${result.status ?? result.signal}).`,
    );
    process.exit(result.status ?? 1);
  }
}

/**
 * Runs pnpm like {@link pnpm} with the terminal attached, but does not exit on failure:
 * returns its exit status (or the signal that ended it).
 */
export function pnpmStatus(args) {
  const result = spawnSync(...pnpmInvocation(args, 'inherit'));
  return result.status ?? result.signal;
}

/**
 * Installs the workspace's dependencies exactly as the lockfile pins them. When the existing
 * node_modules came from another pnpm store (another HOME, another user), pnpm would ask
 * before replacing it and, with no terminal, abort; muster's own node_modules are always
 * safe to rebuild from the lockfile, so the question is answered yes.
 */
export function installDependencies() {
  pnpm([
    'install',
    '--frozen-lockfile',
    '--prefer-offline',
    '--config.confirm-modules-purge=false',
  ]);
}
