import { lstat, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * Every entry under `folder` (the folder itself as `./`) with its modification time, and each
 * file's bytes: two snapshots are equal exactly when nothing there was written, created,
 * renamed or removed. Links are recorded, never followed.
 */
export async function snapshotFolder(folder: string): Promise<Record<string, string>> {
  const result: Record<string, string> = { './': String((await lstat(folder)).mtimeMs) };
  const walk = async (current: string) => {
    const entries = await readdir(current, { withFileTypes: true });
    for (const entry of entries.sort((left, right) => left.name.localeCompare(right.name))) {
      const full = path.join(current, entry.name);
      const stats = await lstat(full);
      const relative = path.relative(folder, full);
      if (entry.isDirectory()) {
        result[`${relative}/`] = String(stats.mtimeMs);
        await walk(full);
      } else {
        result[relative] = `${stats.mtimeMs} ${await readFile(full, 'utf8')}`;
      }
    }
  };
  await walk(folder);
  return result;
}
