/**
 * The per-user folder where `npm pack` keeps a Claude Code CLI the tests run, and the checks that
 * make it safe to run from: a shared `/tmp/<fixed name>` could be planted by any local user with
 * a matching package.json, so the folder is `<tmpdir>/muster-<uid>/<name>`, created 0700, and is
 * refused unless it (and its parent) is a real directory owned by this uid with no group or other
 * write bit. A tarball is extracted only once its sha512 equals the registry's `dist.integrity`.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstatSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** `<tmpdir>/muster-<uid>`, the parent of every per-user cache folder (not yet checked). */
export function userCacheRoot(base = tmpdir()): string {
  return join(base, `muster-${currentUid()}`);
}

function currentUid(): number {
  if (typeof process.getuid !== 'function')
    throw new Error('this platform has no user ids: the Claude Code cache needs a POSIX system');
  return process.getuid();
}

/**
 * Throws unless `folder` is a directory (not a link) owned by the current uid with no group or
 * other write bit, saying what is wrong and what to do.
 */
export function assertPrivateFolder(folder: string): void {
  const stats = lstatSync(folder);
  const uid = currentUid();
  const problem = !stats.isDirectory()
    ? 'is not a directory (a symbolic link or a file)'
    : stats.uid !== uid
      ? `is owned by uid ${stats.uid}, not by you (uid ${uid})`
      : (stats.mode & 0o022) !== 0
        ? `is writable by group or others (mode ${(stats.mode & 0o777).toString(8)})`
        : undefined;
  if (problem !== undefined)
    throw new Error(
      `${folder} ${problem}: a Claude Code CLI from it is not run. Remove the folder (or chmod go-w it if it is yours) and run the test again.`,
    );
}

/**
 * `<base>/muster-<uid>/<name>`, created 0700 when missing; both folders are checked with
 * {@link assertPrivateFolder} (throws when either is not private).
 */
export async function privateCacheFolder(name: string, base = tmpdir()): Promise<string> {
  const root = userCacheRoot(base);
  const folder = join(root, name);
  await mkdir(folder, { recursive: true, mode: 0o700 });
  assertPrivateFolder(root);
  assertPrivateFolder(folder);
  return folder;
}

/** Throws unless the file's sha512 is the Subresource Integrity string `integrity`. */
export function assertTarballIntegrity(file: string, integrity: string): void {
  if (!integrity.startsWith('sha512-'))
    throw new Error(
      `the registry gave no sha512 integrity for ${file} (got ${JSON.stringify(integrity)}): it is not extracted`,
    );
  const actual = `sha512-${createHash('sha512').update(readFileSync(file)).digest('base64')}`;
  if (actual !== integrity)
    throw new Error(
      `${file} has integrity ${actual}, but the registry says ${integrity}: it is not extracted. Remove it and run the test again.`,
    );
}

/** Runs a command in `cwd`, resolving with its standard output. */
export function runCommand(
  command: string,
  args: string[],
  cwd: string,
  timeout: number,
): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd, timeout, encoding: 'utf8' }, (error, stdout, stderr) => {
      if (error)
        reject(new Error(`${command} ${args.join(' ')}: ${stderr.trim() || error.message}`));
      else resolve(stdout);
    });
  });
}

/**
 * `npm pack <packageName>@<version>` into the private `folder`, its sha512 checked against
 * `npm view … dist.integrity`, then extracted there (`<folder>/package`). Throws on any failure.
 */
export async function packVerified(
  packageName: string,
  version: string,
  folder: string,
  timeoutMs: number,
): Promise<void> {
  const spec = `${packageName}@${version}`;
  const integrity = (
    await runCommand('npm', ['view', spec, 'dist.integrity'], folder, timeoutMs)
  ).trim();
  const packed = JSON.parse(
    await runCommand('npm', ['pack', spec, '--json', '--silent'], folder, timeoutMs),
  ) as Array<{ filename?: unknown }>;
  const filename = packed[0]?.filename;
  if (typeof filename !== 'string' || filename.includes('/'))
    throw new Error(`npm pack ${spec} --json named no tarball (${JSON.stringify(packed[0])})`);
  assertTarballIntegrity(join(folder, filename), integrity);
  await runCommand('tar', ['xzf', filename], folder, 120_000);
}
