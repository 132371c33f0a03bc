import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/**
 * Live processes whose command line, environment (a teammate's MUSTER_HOME) or working
 * directory names `folder`: what is left of a team run in it. Linux (`/proc`) only.
 */
export function processesInvolving(folder: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      const environment = readFileSync(`/proc/${pid}/environ`, 'utf8');
      const cwd = readlinkSync(`/proc/${pid}/cwd`);
      if ([commandLine, environment, cwd].some((text) => text.includes(folder)))
        found.push(`${pid} ${commandLine}`);
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found;
}
