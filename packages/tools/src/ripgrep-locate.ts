// Finding the `rg` executable on the PATH a tool call runs with.
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import path from 'node:path';

/**
 * The absolute path of the first executable `rg` on `searchPath` (a `PATH`-style list), or
 * `undefined` when there is none. Relative entries of the list are ignored.
 */
export async function findRipgrep(searchPath: string | undefined): Promise<string | undefined> {
  for (const folder of (searchPath ?? '').split(path.delimiter)) {
    if (folder === '' || !path.isAbsolute(folder)) continue;
    const candidate = path.join(folder, 'rg');
    try {
      await access(candidate, constants.X_OK);
      if ((await stat(candidate)).isFile()) return candidate;
    } catch {
      // not here: try the next folder
    }
  }
  return undefined;
}
