import { spawnSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempDirectory } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';

const fixture = (name: string) =>
  fileURLToPath(new URL(`./test-fixtures/${name}`, import.meta.url));

/** strace is how the test sees which flushes the kernel is really asked for. */
const hasStrace = spawnSync('strace', ['-V']).status === 0;

describe.skipIf(!hasStrace)('an acknowledged write is durable', () => {
  it('flushes the temp file before the rename and the folder after it', async () => {
    const folder = await makeTempDirectory('muster-durability-');
    const file = path.join(folder, 'inbox.json');
    await writeFile(file, '{"count":1}');
    const calls = traceChild([fixture('update-once.mjs'), file]);
    const renameAt = calls.findIndex((call) => /^rename/.test(call) && call.includes(file));
    expect(renameAt, calls.join('\n')).toBeGreaterThan(0);
    const flushedTemp = calls
      .slice(0, renameAt)
      .some((call) => /^f(data)?sync\(\d+<[^>]*\/\.inbox\.json\.[^>]*\.tmp>\)/.test(call));
    expect(flushedTemp, calls.join('\n')).toBe(true);
    const flushedFolder = calls
      .slice(renameAt + 1)
      .some((call) => call.startsWith('fsync(') && call.includes(`<${folder}>`));
    expect(flushedFolder, calls.join('\n')).toBe(true);
  }, 60_000);

  it('flushes every folder it creates into its parent', async () => {
    const base = await makeTempDirectory('muster-durability-');
    const root = path.join(base, 'root');
    await mkdir(root);
    const file = path.join(root, 'teams', 'crew', 'config.json');
    const calls = traceChild([fixture('update-once.mjs'), file, root]);
    for (const parent of [root, path.join(root, 'teams')]) {
      const flushed = calls.some(
        (call) => call.startsWith('fsync(') && call.includes(`<${parent}>`),
      );
      expect(flushed, `${parent}\n${calls.join('\n')}`).toBe(true);
    }
  }, 60_000);
});

/** Runs node with the arguments under strace; returns the traced calls, one per line. */
function traceChild(args: string[]): string[] {
  const result = spawnSync(
    'strace',
    [
      '-f',
      '-qq',
      '-y',
      '-e',
      'trace=fsync,fdatasync,rename,renameat,renameat2',
      process.execPath,
      ...args,
    ],
    { encoding: 'utf8' },
  );
  if (result.status !== 0) throw new Error(`strace failed: ${result.stderr}`);
  return result.stderr
    .split('\n')
    .map((line) => line.replace(/^\[pid\s+\d+\]\s*/, '').trim())
    .filter((line) => /^(f(data)?sync|rename)/.test(line));
}
