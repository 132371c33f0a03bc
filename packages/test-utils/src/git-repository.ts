import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { makeTempDirectory } from './temp-directory.js';

const execFileAsync = promisify(execFile);

/** Environment that isolates git from the user's global and system configuration. */
export const isolatedGitEnvironment: NodeJS.ProcessEnv = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'muster test',
  GIT_AUTHOR_EMAIL: 'test@muster.invalid',
  GIT_COMMITTER_NAME: 'muster test',
  GIT_COMMITTER_EMAIL: 'test@muster.invalid',
  GIT_TERMINAL_PROMPT: '0',
};

/** Runs git in `cwd` with the isolated environment and returns trimmed stdout. */
export async function git(cwd: string, ...args: string[]): Promise<string> {
  const { stdout } = await execFileAsync('git', args, { cwd, env: isolatedGitEnvironment });
  return stdout.trim();
}

export interface TestRepository {
  /** Absolute path of the repository's working tree. */
  path: string;
  /** Runs git inside the repository. */
  git: (...args: string[]) => Promise<string>;
  /** Writes a file (creating folders) relative to the repository root. */
  write: (relativePath: string, content: string) => Promise<void>;
  /** Stages everything and commits with the message; returns the new commit id. */
  commitAll: (message: string) => Promise<string>;
}

/**
 * Creates a real git repository in a temp directory (removed after the test) on branch
 * `main`, with background maintenance off and one initial commit.
 */
export async function makeGitRepository(
  files: Record<string, string> = { 'README.md': '# test repository\n' },
): Promise<TestRepository> {
  const directory = await makeTempDirectory('muster-git-');
  const run = (...args: string[]) => git(directory, ...args);
  await run('init', '--initial-branch=main', '--quiet');
  await run('config', 'maintenance.auto', 'false');
  await run('config', 'gc.auto', '0');
  await run('config', 'commit.gpgsign', 'false');
  const write = async (relativePath: string, content: string) => {
    const target = path.join(directory, relativePath);
    await import('node:fs/promises').then((fs) =>
      fs.mkdir(path.dirname(target), { recursive: true }),
    );
    await writeFile(target, content);
  };
  const commitAll = async (message: string) => {
    await run('add', '--all');
    await run('commit', '--quiet', '--allow-empty', '-m', message);
    return run('rev-parse', 'HEAD');
  };
  for (const [relativePath, content] of Object.entries(files)) {
    await write(relativePath, content);
  }
  await commitAll('initial commit');
  return { path: directory, git: run, write, commitAll };
}
