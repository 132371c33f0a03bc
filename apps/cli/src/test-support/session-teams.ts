import { readFileSync, readlinkSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';

/** The one session team folder under a copied 2.1.330 state (`session-<8 hex>`). */
export async function sessionTeamOf(root: string): Promise<string> {
  const names = (await readdir(path.join(root, 'tasks'))).filter((name) =>
    name.startsWith('session-'),
  );
  if (names.length !== 1) throw new Error(`expected one session under ${root}, found ${names}`);
  return names[0]!;
}

/** Reads, changes and writes back a team's config as Claude Code writes it (no newline). */
export async function editConfig(
  root: string,
  team: string,
  change: (config: Record<string, unknown>) => void,
): Promise<void> {
  const file = path.join(root, 'teams', team, 'config.json');
  const config = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
  change(config);
  await writeFile(file, JSON.stringify(config, null, 2));
}

/**
 * Makes a copied state look like a session that is still running: its `leadProcess` names
 * this very test process (pid, pid namespace, kernel start time, claimed now), which is alive.
 */
export async function makeSessionLive(root: string): Promise<string> {
  const team = await sessionTeamOf(root);
  const stat = readFileSync(`/proc/${process.pid}/stat`, 'utf8');
  const procStart = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]!;
  await editConfig(root, team, (config) => {
    const recorded = config.leadProcess as Record<string, unknown>;
    config.leadProcess = {
      ...recorded,
      pid: process.pid,
      claimedAt: Date.now(),
      pidSpace: `${hostname()}#${readlinkSync('/proc/self/ns/pid')}`,
      procStart,
    };
  });
  return team;
}
