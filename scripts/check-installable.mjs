#!/usr/bin/env node
// Proves a library package works as published, for people who install only that package:
//   node scripts/check-installable.mjs @muster/mailbox
// 1. Packs it and every @muster package it depends on with `pnpm pack`, as publishing would
//    (pnpm rewrites `workspace:` and `catalog:` versions).
// 2. Installs the tarballs with plain `npm install` into an empty folder.
// 3. Checks every packed manifest (real version ranges, no peer dependencies,
//    only dist/ and docs packed) and that node_modules holds exactly our packages, the
//    third-party dependencies they declare and what those depend on — nothing else.
// 4. Runs the package's own `scripts/installed-check.mjs` in that folder: plain ESM that
//    imports the package by name and uses it.
// Needs each package's dist/ (turbo builds before testing) and the npm registry (for zod).
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
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
import { repositoryRoot, resolvePnpm } from './pnpm.mjs';

const packedFileNames = new Set(['dist', 'package.json', 'README.md', 'LICENSE', 'CHANGELOG.md']);

function fail(message) {
  console.error(`check-installable: ${message}`);
  process.exit(1);
}

function readJson(file) {
  return JSON.parse(readFileSync(file, 'utf8'));
}

// npm must not inherit the settings pnpm exports to scripts (npm_config_* for pnpm's own
// options); keep only what says how to reach the registry.
const keptNpmSettings = new Set([
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
      return keptNpmSettings.has(lower.slice('npm_config_'.length));
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

/** Every workspace package by name: its folder and manifest. */
function workspacePackages() {
  const packages = new Map();
  for (const group of ['packages', 'apps']) {
    for (const folder of readdirSync(path.join(repositoryRoot, group))) {
      const manifest = path.join(repositoryRoot, group, folder, 'package.json');
      if (!existsSync(manifest)) continue;
      const json = readJson(manifest);
      packages.set(json.name, { directory: path.dirname(manifest), json });
    }
  }
  return packages;
}

/** The package and every workspace package it depends on, dependencies first. */
function withWorkspaceDependencies(name, packages, seen = new Set()) {
  if (seen.has(name)) return [];
  seen.add(name);
  const entry = packages.get(name);
  if (entry === undefined) fail(`${name} is not a package of this workspace.`);
  const local = Object.entries(entry.json.dependencies ?? {})
    .filter(([, version]) => String(version).startsWith('workspace:'))
    .flatMap(([dependency]) => withWorkspaceDependencies(dependency, packages, seen));
  return [...local, name];
}

function installedPackages(nodeModules) {
  return readdirSync(nodeModules)
    .filter((entry) => !entry.startsWith('.'))
    .flatMap((entry) =>
      entry.startsWith('@')
        ? readdirSync(path.join(nodeModules, entry)).map((name) => `${entry}/${name}`)
        : [entry],
    )
    .sort();
}

const target = process.argv[2];
if (target === undefined) fail('usage: node scripts/check-installable.mjs <@muster/package>');
const packages = workspacePackages();
const names = withWorkspaceDependencies(target, packages);
const smokeCheck = path.join(packages.get(target).directory, 'scripts/installed-check.mjs');
if (!existsSync(smokeCheck)) fail(`${target} has no scripts/installed-check.mjs to run.`);
for (const name of names) {
  if (!existsSync(path.join(packages.get(name).directory, 'dist/index.js'))) {
    fail(`${name} has no dist/index.js: run \`pnpm --filter ${name} build\` first.`);
  }
}

const workDirectory = mkdtempSync(path.join(tmpdir(), 'muster-installable-'));
try {
  const [pnpm, ...pnpmPrefix] = resolvePnpm();
  const tarballs = names.map((name) => {
    const destination = path.join(workDirectory, 'packs', name.replace('/', '-'));
    mkdirSync(destination, { recursive: true });
    run(
      pnpm,
      [...pnpmPrefix, 'pack', '--pack-destination', destination],
      packages.get(name).directory,
    );
    const tarball = readdirSync(destination).find((file) => file.endsWith('.tgz'));
    if (!tarball) fail(`pnpm pack wrote no .tgz for ${name}`);
    return path.join(destination, tarball);
  });

  const project = path.join(workDirectory, 'project');
  mkdirSync(project);
  writeFileSync(
    path.join(project, 'package.json'),
    JSON.stringify({ name: 'muster-installable-check', private: true, type: 'module' }, null, 2),
  );
  run(
    'npm',
    ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', ...tarballs],
    project,
  );

  const thirdParty = new Set();
  for (const name of names) {
    const installedDirectory = path.join(project, 'node_modules', name);
    const manifest = readJson(path.join(installedDirectory, 'package.json'));
    for (const [dependency, version] of Object.entries(manifest.dependencies ?? {})) {
      if (!/^\^?~?\d+\.\d+\.\d+/.test(version)) {
        fail(`${name} was packed with dependency ${dependency}@${version}, not a real version.`);
      }
      if (!names.includes(dependency)) thirdParty.add(dependency);
    }
    if (manifest.peerDependencies) fail(`${name} was packed with peer dependencies.`);
    // An optional dependency (a native module such as node-pty) may fail to build; it is
    // expected in node_modules only when npm installed it.
    for (const [dependency, version] of Object.entries(manifest.optionalDependencies ?? {})) {
      if (!/^\^?~?\d+\.\d+\.\d+/.test(version)) {
        fail(
          `${name} was packed with optional dependency ${dependency}@${version}, not a real version.`,
        );
      }
      if (existsSync(path.join(project, 'node_modules', dependency))) thirdParty.add(dependency);
    }
    const files = readdirSync(installedDirectory).filter((file) => !packedFileNames.has(file));
    if (files.length > 0) fail(`${name} packs files it should not: ${files.join(', ')}`);
  }
  // Third-party packages may bring their own dependencies (the Anthropic SDK does): expect the
  // closure of what the third-party packages declare, and nothing beyond it.
  const closure = new Set();
  const pending = [...thirdParty];
  while (pending.length > 0) {
    const dependency = pending.pop();
    if (closure.has(dependency)) continue;
    closure.add(dependency);
    const manifestPath = path.join(project, 'node_modules', dependency, 'package.json');
    if (!existsSync(manifestPath)) fail(`${dependency} is declared but was not installed.`);
    const manifest = readJson(manifestPath);
    for (const next of Object.keys(manifest.dependencies ?? {})) pending.push(next);
    for (const next of Object.keys(manifest.optionalDependencies ?? {})) {
      if (existsSync(path.join(project, 'node_modules', next))) pending.push(next);
    }
  }
  const expected = [...names, ...closure].sort();
  const installed = installedPackages(path.join(project, 'node_modules'));
  if (installed.join(',') !== expected.join(',')) {
    fail(`expected exactly ${expected.join(', ')} in node_modules, found ${installed.join(', ')}`);
  }

  copyFileSync(smokeCheck, path.join(project, 'installed-check.mjs'));
  console.log(run('node', ['installed-check.mjs'], project).trim());
  console.log(
    `check-installable: ok — ${target} installs with npm from its tarballs; node_modules holds ${installed.join(', ')}.`,
  );
} finally {
  rmSync(workDirectory, { recursive: true, force: true });
}
