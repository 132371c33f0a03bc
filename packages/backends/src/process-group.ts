// The process group of a pid, for the member monitor's sidecar record, on each platform:
// Linux reads `/proc/<pid>/stat` (field 5); macOS has no /proc and asks `ps -o pgid= -p <pid>`;
// elsewhere (Windows) there are no process groups and nothing is recorded.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** How long `ps` may take on macOS before the group counts as unknown. */
const PS_TIMEOUT_MS = 2_000;

/**
 * `pid`'s process group id, or undefined when the pid is gone or the platform has no process
 * groups (win32). `platform` defaults to `process.platform` (tests inject the others).
 */
export function readProcessGroup(
  pid: number,
  platform: NodeJS.Platform = process.platform,
): number | undefined {
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  let text: string;
  if (platform === 'linux') {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      text = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2] ?? '';
    } catch {
      return undefined;
    }
  } else if (platform === 'darwin' || platform === 'freebsd' || platform === 'openbsd') {
    try {
      text = execFileSync('ps', ['-o', 'pgid=', '-p', String(pid)], {
        encoding: 'utf8',
        timeout: PS_TIMEOUT_MS,
        stdio: ['ignore', 'pipe', 'ignore'],
      }).trim();
    } catch {
      // ps exits 1 when the pid is not running.
      return undefined;
    }
  } else {
    return undefined;
  }
  const group = Number(text);
  return Number.isInteger(group) && group > 0 ? group : undefined;
}
