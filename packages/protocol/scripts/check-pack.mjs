#!/usr/bin/env node
// Proves @muster/protocol works as published: packs it with `pnpm pack`, installs the
// tarball with plain `npm install` into an empty folder, imports it from a tiny ESM script
// and parses a team config with it, and checks that zod is its one and only dependency.
// Run by test/package-pack.test.ts; needs `pnpm --filter @muster/protocol build` first.
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const packageDirectory = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const packageJson = JSON.parse(readFileSync(path.join(packageDirectory, 'package.json'), 'utf8'));
const pinnedPnpm = JSON.parse(
  readFileSync(path.join(packageDirectory, '../../package.json'), 'utf8'),
).packageManager.replace(/^pnpm@/, '');

function fail(message) {
  console.error(`check-pack: ${message}`);
  process.exit(1);
}

// npm must not inherit the settings pnpm exports to scripts (npm_config_* for pnpm's own
// options); keep only what says how to reach the registry.
const KEPT_NPM_SETTINGS = new Set([
  'registry',
  'cache',
  'userconfig',
  'globalconfig',
  'proxy',
  'https_proxy',
  'noproxy',
  'cafile',
  'strict_ssl',
]);
const cleanEnvironment = Object.fromEntries(
  Object.entries(process.env).filter(([key]) => {
    const lower = key.toLowerCase();
    if (lower.startsWith('npm_config_'))
      return KEPT_NPM_SETTINGS.has(lower.slice('npm_config_'.length));
    return (
      !lower.startsWith('npm_package_') &&
      !lower.startsWith('npm_lifecycle_') &&
      !lower.startsWith('pnpm_')
    );
  }),
);

function run(command, args, cwd) {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', env: cleanEnvironment });
  if (result.error) fail(`${command} ${args.join(' ')} could not start: ${result.error.message}`);
  if (result.status !== 0) {
    fail(
      `${command} ${args.join(' ')} failed (exit ${result.status}) in ${cwd}:\n${result.stdout}\n${result.stderr}`,
    );
  }
  return result.stdout;
}

function pnpmCommand() {
  const probe = spawnSync('pnpm', ['--version'], { encoding: 'utf8', env: cleanEnvironment });
  return probe.status === 0 ? ['pnpm'] : ['npx', '--yes', `pnpm@${pinnedPnpm}`];
}

if (!existsSync(path.join(packageDirectory, 'dist/index.js'))) {
  fail('dist/index.js is missing: run `pnpm --filter @muster/protocol build` first.');
}

const workDirectory = mkdtempSync(path.join(tmpdir(), 'muster-pack-check-'));
try {
  // 1. Pack exactly as publishing would (pnpm rewrites catalog: and workspace: versions).
  const [pnpm, ...pnpmPrefix] = pnpmCommand();
  run(pnpm, [...pnpmPrefix, 'pack', '--pack-destination', workDirectory], packageDirectory);
  const tarball = readdirSync(workDirectory).find((file) => file.endsWith('.tgz'));
  if (!tarball) fail(`pnpm pack wrote no .tgz into ${workDirectory}`);

  // 2. Install it with plain npm into an empty project.
  const projectDirectory = path.join(workDirectory, 'project');
  mkdirSync(projectDirectory);
  writeFileSync(
    path.join(projectDirectory, 'package.json'),
    JSON.stringify({ name: 'muster-pack-check', private: true, type: 'module' }, null, 2),
  );
  run(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
      '--loglevel=error',
      path.join(workDirectory, tarball),
    ],
    projectDirectory,
  );

  // 3. zod is the only dependency, declared with a real version, and the only package installed besides ours.
  const installedPackageJson = JSON.parse(
    readFileSync(path.join(projectDirectory, 'node_modules/@muster/protocol/package.json'), 'utf8'),
  );
  const dependencies = installedPackageJson.dependencies ?? {};
  if (Object.keys(dependencies).join(',') !== 'zod') {
    fail(`expected zod to be the only dependency, found ${JSON.stringify(dependencies)}`);
  }
  if (!/^\^?~?\d+\.\d+\.\d+/.test(dependencies.zod)) {
    fail(`the packed zod version is not a real version range: ${dependencies.zod}`);
  }
  if (installedPackageJson.peerDependencies || installedPackageJson.optionalDependencies) {
    fail('the packed package.json declares peer or optional dependencies');
  }
  const installed = readdirSync(path.join(projectDirectory, 'node_modules'))
    .filter((entry) => !entry.startsWith('.'))
    .flatMap((entry) =>
      entry.startsWith('@')
        ? readdirSync(path.join(projectDirectory, 'node_modules', entry)).map(
            (name) => `${entry}/${name}`,
          )
        : [entry],
    )
    .sort();
  if (installed.join(',') !== '@muster/protocol,zod') {
    fail(`expected only @muster/protocol and zod in node_modules, found ${installed.join(', ')}`);
  }
  const packedFiles = readdirSync(
    path.join(projectDirectory, 'node_modules/@muster/protocol'),
  ).sort();
  if (
    packedFiles.some(
      (file) => !['dist', 'package.json', 'README.md', 'LICENSE', 'CHANGELOG.md'].includes(file),
    )
  ) {
    fail(`unexpected files in the package: ${packedFiles.join(', ')}`);
  }

  // 4. Import it from plain ESM and use it.
  writeFileSync(
    path.join(projectDirectory, 'check.mjs'),
    [
      "import { PROTOCOL_VERSION, TeamConfigSchema, parseJsonFile, formatJsonFile, parseProtocolMessage } from '@muster/protocol';",
      "const text = JSON.stringify({ name: 't', createdAt: 1, leadAgentId: 'team-lead@t', extra: true, members: [] }, null, 2);",
      "const config = parseJsonFile(text, TeamConfigSchema, 'config.json');",
      "if (formatJsonFile(config) !== text) throw new Error('round trip changed the file');",
      'const message = parseProtocolMessage(\'{"type":"mode_set_request","mode":"plan","from":"team-lead"}\');',
      "if (message?.type !== 'mode_set_request') throw new Error('protocol message not recognised');",
      "if (TeamConfigSchema.safeParse({}).success) throw new Error('an empty config was accepted');",
      'console.log(`imported @muster/protocol ${PROTOCOL_VERSION}`);',
    ].join('\n'),
  );
  const output = run('node', ['check.mjs'], projectDirectory);
  console.log(output.trim());
  console.log(
    `check-pack: ok — ${tarball} installs with npm, imports, and depends on zod ${dependencies.zod} only (version ${packageJson.version}).`,
  );
} finally {
  rmSync(workDirectory, { recursive: true, force: true });
}
