// Packs @muster/backends with the @muster packages it depends on, installs the tarballs with
// plain npm into an empty folder and uses it there (scripts/check-installable.mjs at the
// repository root, then scripts/installed-check.mjs here), twice: once as this machine is (a
// C toolchain builds node-pty 1.1.0, which ships no Linux prebuilds), once with a PATH that
// holds every program of this machine except make, the C/C++ compilers and python (node-gyp
// fails, npm drops the optional node-pty and the install still succeeds). Needs the built
// dist/ folders and the npm registry (for @xterm/headless, node-pty and zod).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';

const script = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../scripts/check-installable.mjs',
);
const temporaryFolders: string[] = [];

afterAll(() => {
  for (const folder of temporaryFolders) rmSync(folder, { recursive: true, force: true });
});

/** Programs that build native modules: node-gyp needs python, make and a C++ compiler. */
const COMPILER_NAME =
  /^(make|gmake|cc|c\+\+|cpp|gcc.*|g\+\+.*|clang.*|.*-linux-gnu-.*|python.*|pyenv|node-gyp)$/;

/**
 * A folder that links every program on this machine's PATH except compilers and python, for
 * use as the whole PATH: the machine as a person without a build toolchain has it.
 */
function pathWithoutCompilers(): string {
  const folder = mkdtempSync(path.join(tmpdir(), 'muster-no-compiler-'));
  temporaryFolders.push(folder);
  const bin = path.join(folder, 'bin');
  mkdirSync(bin);
  const linked = new Set<string>();
  symlinkSync(process.execPath, path.join(bin, 'node'));
  linked.add('node');
  for (const source of (process.env.PATH ?? '').split(path.delimiter)) {
    if (source === '' || !existsSync(source)) continue;
    for (const name of readdirSync(source)) {
      if (linked.has(name) || COMPILER_NAME.test(name)) continue;
      linked.add(name);
      symlinkSync(path.join(source, name), path.join(bin, name));
    }
  }
  return bin;
}

function checkInstallable(environment: NodeJS.ProcessEnv) {
  return spawnSync(process.execPath, [script, '@muster/backends'], {
    encoding: 'utf8',
    timeout: 90_000,
    env: environment,
  });
}

it('installs alone with npm where node-pty can be built, and every backend runs a member', () => {
  const result = checkInstallable({ ...process.env, MUSTER_CHECK_PTY: 'available' });
  expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
  expect(result.stdout).toContain('used @muster/backends: pty available and ran a member');
  expect(result.stdout).toContain('in-process ran a member');
  expect(result.stdout).toMatch(/tmux ran a member \(tmux -L muster-test-[0-9a-f]+ attach/);
  expect(result.stdout).toMatch(/node_modules holds .*@muster\/backends.*node-pty/);
}, 100_000);

it('installs alone without a compiler: pty says unavailable with the fix, tmux and in-process run', () => {
  const onlyPath = pathWithoutCompilers();
  for (const program of ['make', 'g++', 'cc', 'python3', 'python']) {
    expect(existsSync(path.join(onlyPath, program))).toBe(false);
  }
  for (const program of ['npm', 'pnpm', 'tmux', 'sh']) {
    expect(existsSync(path.join(onlyPath, program))).toBe(true);
  }
  const result = checkInstallable({
    ...process.env,
    PATH: onlyPath,
    MUSTER_CHECK_PTY: 'unavailable',
  });
  expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
  expect(result.stdout).toMatch(
    /used @muster\/backends: pty unavailable: node-pty is not built \(.+\); fix: [^;]*make/s,
  );
  expect(result.stdout).toContain('in-process ran a member');
  expect(result.stdout).toMatch(/tmux ran a member \(tmux -L muster-test-[0-9a-f]+ attach/);
  const holds = /node_modules holds (.*)\.$/m.exec(result.stdout)?.[1] ?? '';
  expect(holds).toContain('@muster/backends');
  expect(holds).not.toContain('node-pty');
}, 100_000);
