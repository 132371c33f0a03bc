import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeGitRepository, makeTempDirectory, runNodeProcesses } from './index.js';

let rememberedDirectory = '';

describe('test-utils', () => {
  it('makes a temp directory that exists during the test', async () => {
    rememberedDirectory = await makeTempDirectory();
    expect(existsSync(rememberedDirectory)).toBe(true);
  });

  it('removed the previous test directory when that test finished', () => {
    expect(rememberedDirectory).not.toBe('');
    expect(existsSync(rememberedDirectory)).toBe(false);
  });

  it('makes a git repository on main with one commit', async () => {
    const repository = await makeGitRepository({ 'a.txt': 'a\n' });
    expect(await repository.git('branch', '--show-current')).toBe('main');
    expect(await repository.git('rev-list', '--count', 'HEAD')).toBe('1');
    expect(await readFile(path.join(repository.path, 'a.txt'), 'utf8')).toBe('a\n');
  });

  it('runs several real node processes and reports a failing one', async () => {
    const directory = await makeTempDirectory();
    const script = path.join(directory, 'echo.mjs');
    await import('node:fs/promises').then((fs) =>
      fs.writeFile(
        script,
        'console.log(process.pid + " " + process.argv[2]); process.exit(process.argv[2] === "fail" ? 3 : 0);',
      ),
    );
    const results = await runNodeProcesses(script, 3, (index) => [String(index)]);
    const pids = new Set(results.map((result) => result.stdout.split(' ')[0]));
    expect(pids.size).toBe(3);
    expect(results.map((result) => result.stdout.trim().split(' ')[1])).toEqual(['0', '1', '2']);
    await expect(runNodeProcesses(script, 2, () => ['fail'])).rejects.toThrow(/exited with 3/);
  });
});
