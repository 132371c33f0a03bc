import { randomBytes } from 'node:crypto';
import { readdir, readFile, realpath, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * Tells git that the worktree whose private folder is `gitDirectory`
 * (`.git/worktrees/{name}/`) now lives at `folder`, after the folder was renamed: it
 * rewrites `{gitDirectory}/gitdir`, git's link back to the worktree's `.git` file, as
 * `git worktree repair {folder}` does for that worktree, and checks first that
 * `{folder}/.git` points at `gitDirectory`. A relative link stays relative; the file is
 * replaced atomically.
 *
 * Why not `git worktree repair`: it also "repairs" every other worktree of the
 * repository, opening each one's `.git` file and writing a new one into any folder whose
 * `.git` is missing. A folder a concurrent cleanup is deleting lacks its `.git` for a
 * moment, so a repair there put the file back and the other cleanup's
 * `git worktree remove` failed with "Directory not empty", keeping a folder git had
 * already forgotten. This touches nothing but the one worktree's own link.
 */
export async function pointGitAtWorktree(gitDirectory: string, folder: string): Promise<void> {
  const dotGit = path.join(await realpath(folder), '.git');
  let gitFile: string;
  try {
    gitFile = await readFile(dotGit, 'utf8');
  } catch (error) {
    throw new Error(`${dotGit} cannot be read (${(error as Error).message})`, { cause: error });
  }
  const match = /^gitdir: (.+)$/m.exec(gitFile);
  if (!match) throw new Error(`${dotGit} is not a "gitdir: …" file`);
  const named = path.resolve(path.dirname(dotGit), match[1]!.trim());
  const [namedReal, expected] = await Promise.all([
    realpath(named).catch(() => named),
    realpath(gitDirectory),
  ]);
  if (namedReal !== expected) {
    throw new Error(`${dotGit} points at ${named}, not at git's folder ${gitDirectory}`);
  }
  const link = path.join(gitDirectory, 'gitdir');
  const old = (await readFile(link, 'utf8')).trim();
  const target = path.isAbsolute(old) ? dotGit : path.relative(gitDirectory, dotGit);
  const temporary = `${link}.muster-${randomBytes(6).toString('hex')}`;
  try {
    await writeFile(temporary, `${target}\n`);
    await rename(temporary, link);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/**
 * One phrase saying what is still in `folder` and whether git still has the worktree's
 * private folder, for the reason given when `git worktree remove` failed half-way.
 */
export async function describeRemains(folder: string, gitDirectory: string): Promise<string> {
  let inFolder: string;
  try {
    const names = (await readdir(folder)).sort();
    const shown = names.slice(0, 5).join(', ');
    inFolder =
      names.length === 0
        ? `${folder} is empty`
        : `${folder} still holds ${shown}${names.length > 5 ? ` and ${names.length - 5} more` : ''}`;
  } catch (error) {
    inFolder = `${folder} cannot be listed (${(error as Error).message})`;
  }
  let registered: string;
  try {
    await readdir(gitDirectory);
    registered = `git still has its folder ${gitDirectory}`;
  } catch {
    registered = `git has already deleted its folder ${gitDirectory}, so git no longer lists this worktree`;
  }
  return `${inFolder}; ${registered}`;
}
