import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { readdir, readlink, realpath } from 'node:fs/promises';
import path from 'node:path';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';

/** A running process that could still write into a folder. */
export interface FolderUser {
  processId: number;
  /** Its command line, shortened, for messages. */
  command: string;
  /** How it uses the folder: as its working folder, its root, or through open files. */
  uses: string[];
}

const processTable = '/proc';

/**
 * The processes of this user that have `folder` (or anything inside it) as their working
 * folder or root, or hold a file inside it open, found through Linux's `/proc`. Such a
 * process can write into the folder without knowing its path, so removing the folder
 * could delete what it writes next. Processes of other users cannot be inspected and are
 * not listed. Returns `undefined` where there is no `/proc` (macOS, Windows): the caller
 * cannot rule such writers out there. The `/proc` entries are read with synchronous calls
 * (about ten times faster than asynchronous ones on a busy machine), a batch of processes
 * at a time with the event loop free in between.
 */
export async function findFolderUsers(folder: string): Promise<FolderUser[] | undefined> {
  let names: string[];
  try {
    names = await readdir(processTable);
    await readlink(path.join(processTable, 'self', 'cwd'));
  } catch {
    return undefined;
  }
  const target = await realpath(folder);
  const isInside = (linkTarget: string): boolean => {
    const cleaned = linkTarget.replace(/ \(deleted\)$/, '');
    return cleaned === target || cleaned.startsWith(`${target}${path.sep}`);
  };
  const users: FolderUser[] = [];
  const processIds = names.filter((name) => /^\d+$/.test(name));
  for (let index = 0; index < processIds.length; index += 1) {
    if (index % 25 === 24) await yieldToEventLoop();
    const name = processIds[index]!;
    const uses = usesOf(name, isInside);
    if (uses.length > 0) users.push({ processId: Number(name), command: commandOf(name), uses });
  }
  return users;
}

/** One sentence naming the processes, for a "kept because" reason. */
export function describeFolderUsers(users: FolderUser[]): string {
  const shown = users
    .slice(0, 3)
    .map((user) => `process ${user.processId} (${user.command}: ${user.uses.join(', ')})`);
  const more = users.length > 3 ? ` and ${users.length - 3} more` : '';
  return `${shown.join('; ')}${more}`;
}

function usesOf(name: string, isInside: (target: string) => boolean): string[] {
  const base = path.join(processTable, name);
  const uses: string[] = [];
  for (const [link, label] of [
    ['cwd', 'working folder'],
    ['root', 'root folder'],
  ] as const) {
    const target = readLinkOrUndefined(path.join(base, link));
    if (target !== undefined && isInside(target)) uses.push(label);
  }
  let descriptors: string[];
  try {
    descriptors = readdirSync(path.join(base, 'fd'));
  } catch {
    return uses; // Gone, or another user's process: nothing to see.
  }
  for (const descriptor of descriptors) {
    const target = readLinkOrUndefined(path.join(base, 'fd', descriptor));
    if (target !== undefined && isInside(target)) {
      uses.push(`open file ${path.basename(target.replace(/ \(deleted\)$/, ''))}`);
    }
  }
  return uses;
}

function readLinkOrUndefined(link: string): string | undefined {
  try {
    return readlinkSync(link);
  } catch {
    return undefined; // The process or descriptor went away, or is not ours to read.
  }
}

function commandOf(name: string): string {
  let command = '';
  try {
    command = readFileSync(path.join(processTable, name, 'cmdline'), 'utf8')
      .split('\0')
      .filter(Boolean)
      .join(' ');
  } catch {
    // Gone in the meantime.
  }
  if (command === '') return 'unknown command';
  return command.length > 80 ? `${command.slice(0, 77)}...` : command;
}
