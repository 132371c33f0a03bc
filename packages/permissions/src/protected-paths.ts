/**
 * Files whose contents make later commands run code: a repository's `.git` folder (its
 * config sets `core.fsmonitor`, `core.pager`, aliases; its hooks run on commit), shell and
 * tool startup files, editor and agent settings (`.claude/` and muster's own `.muster/`,
 * whose settings hold hook commands muster runs and whose `agents/*.md` definitions carry a
 * permission mode). `acceptEdits` never covers an edit to one of them: otherwise an allowed
 * edit followed by an allowed `git status` (or the next hook, or the next agent spawned) runs
 * anything.
 */

import { isPathInside } from './path-matching.js';

const PROTECTED_FOLDERS = new Set(['.git', '.husky', '.vscode', '.idea', '.claude', '.muster']);
// prettier-ignore
const PROTECTED_FILES = new Set(['.gitconfig', '.gitmodules', '.bashrc', '.bash_profile', '.bash_login', '.bash_logout', '.profile', '.zshrc', '.zshenv', '.zprofile', '.zlogin', '.envrc', '.ripgreprc', '.npmrc', '.yarnrc', '.yarnrc.yml', '.mcp.json', '.claude.json']);

/** True when a (real, absolute) path is a protected file or lies in a protected folder. */
export function isProtectedPath(path: string): boolean {
  const segments = path.split('/').filter((segment) => segment !== '');
  const name = segments.at(-1) ?? '';
  return PROTECTED_FILES.has(name) || segments.some((segment) => PROTECTED_FOLDERS.has(segment));
}

/**
 * The paths of a call that are protected, judged below the working directory holding them
 * (so a repository that itself sits in such a folder is not protected as a whole).
 */
export function protectedPathsOf(
  paths: readonly string[],
  workingDirectories: readonly string[],
): string[] {
  return paths.filter((path) => {
    const directory = workingDirectories.find((candidate) => isPathInside(path, candidate));
    return isProtectedPath(directory === undefined ? path : path.slice(directory.length));
  });
}
