import { ProtocolError } from './errors.js';
import { agentNameToFileName, assertSafePathSegment, assertTaskId } from './names.js';

/** Normalizes a POSIX path: collapses `//`, resolves `.` and `..` (never above `/`). */
export function normalizePosixPath(input: string): string {
  const absolute = input.startsWith('/');
  const parts: string[] = [];
  for (const part of input.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (parts.length > 0 && parts[parts.length - 1] !== '..') parts.pop();
      else if (!absolute) parts.push('..');
      continue;
    }
    parts.push(part);
  }
  const joined = parts.join('/');
  return absolute ? `/${joined}` : joined || '.';
}

/** Throws `INVALID_INPUT` for a root that cannot be a folder path (empty, or holding NUL). */
function assertUsableRoot(root: string): void {
  if (root.trim() === '' || root.includes('\0')) {
    throw new ProtocolError({
      code: 'INVALID_INPUT',
      message: `The muster root ${JSON.stringify(root)} is not a usable folder path (it is empty or contains NUL). Pass --root with a real folder, or set MUSTER_HOME.`,
      details: { root },
    });
  }
}

/** True when the normalized `candidate` is `root` itself or lies below it. */
function isUnderRoot(root: string, candidate: string): boolean {
  if (candidate === root) return true;
  if (root === '/') return candidate.startsWith('/');
  if (root === '.') {
    return !candidate.startsWith('/') && candidate !== '..' && !candidate.startsWith('../');
  }
  return candidate.startsWith(`${root}/`);
}

/**
 * Joins segments under a root and proves the result stays inside it. Each segment must be
 * a single safe path segment (`INVALID_NAME` otherwise); `PATH_ESCAPES_ROOT` is thrown if
 * the result would leave `root`. Relative roots are compared as given (no working folder
 * is consulted: this package does no I/O).
 */
export function joinUnderRoot(root: string, ...segments: string[]): string {
  assertUsableRoot(root);
  const normalizedRoot = normalizePosixPath(root);
  for (const segment of segments) assertSafePathSegment(segment, 'path segment');
  const joined = normalizePosixPath([normalizedRoot, ...segments].join('/'));
  if (!isUnderRoot(normalizedRoot, joined)) {
    throw new ProtocolError({
      code: 'PATH_ESCAPES_ROOT',
      message: `The path ${joined} would leave the muster root ${normalizedRoot}; refusing to use it. Check the names passed in.`,
      details: { root: normalizedRoot, segments },
    });
  }
  return joined;
}

/** File and folder names used inside a root. */
export const LAYOUT_NAMES = {
  teams: 'teams',
  tasks: 'tasks',
  inboxes: 'inboxes',
  teamConfig: 'config.json',
  tasksLock: '.lock',
  highWatermark: '.highwatermark',
  sidecar: '.muster',
  lockSuffix: '.lock',
} as const;

/** Every path muster reads or writes under one root (`~/.muster`, or `~/.claude`). */
export interface RootLayout {
  /** The normalized root. */
  root: string;
  /** `{root}/teams` */
  teamsDirectory(): string;
  /** `{root}/teams/{team}` */
  teamDirectory(team: string): string;
  /** `{root}/teams/{team}/config.json` */
  teamConfigPath(team: string): string;
  /** `{root}/teams/{team}/inboxes` */
  inboxesDirectory(team: string): string;
  /** `{root}/teams/{team}/inboxes/{agent}.json` (`@` in the name becomes `-`). */
  inboxPath(team: string, agentName: string): string;
  /** `{root}/teams/{team}/inboxes/{agent}.archive.jsonl`: read messages moved out by compaction. */
  inboxArchivePath(team: string, agentName: string): string;
  /** `{root}/teams/{team}/.muster`: muster's own files that Claude Code's format has no field for. */
  sidecarDirectory(team: string): string;
  /** `{root}/teams/{team}/.muster/{file}` */
  sidecarPath(team: string, fileName: string): string;
  /** `{root}/tasks` */
  tasksRootDirectory(): string;
  /** `{root}/tasks/{team}` */
  tasksDirectory(team: string): string;
  /** `{root}/tasks/{team}/{id}.json` */
  taskPath(team: string, taskId: string): string;
  /** `{root}/tasks/{team}/.lock`: locked (as `.lock.lock`) to create tasks and check busy agents. */
  tasksLockPath(team: string): string;
  /** `{root}/tasks/{team}/.highwatermark`: the highest task id ever deleted. */
  highWatermarkPath(team: string): string;
}

/** Builds the layout for a root. Every method validates its names and stays under the root. */
export function createRootLayout(root: string): RootLayout {
  assertUsableRoot(root);
  const normalizedRoot = normalizePosixPath(root);
  const team = (name: string) => assertSafePathSegment(name, 'team name');
  const layout: RootLayout = {
    root: normalizedRoot,
    teamsDirectory: () => joinUnderRoot(normalizedRoot, LAYOUT_NAMES.teams),
    teamDirectory: (name) => joinUnderRoot(normalizedRoot, LAYOUT_NAMES.teams, team(name)),
    teamConfigPath: (name) =>
      joinUnderRoot(normalizedRoot, LAYOUT_NAMES.teams, team(name), LAYOUT_NAMES.teamConfig),
    inboxesDirectory: (name) =>
      joinUnderRoot(normalizedRoot, LAYOUT_NAMES.teams, team(name), LAYOUT_NAMES.inboxes),
    inboxPath: (name, agentName) =>
      joinUnderRoot(
        normalizedRoot,
        LAYOUT_NAMES.teams,
        team(name),
        LAYOUT_NAMES.inboxes,
        `${agentNameToFileName(agentName)}.json`,
      ),
    inboxArchivePath: (name, agentName) =>
      joinUnderRoot(
        normalizedRoot,
        LAYOUT_NAMES.teams,
        team(name),
        LAYOUT_NAMES.inboxes,
        `${agentNameToFileName(agentName)}.archive.jsonl`,
      ),
    sidecarDirectory: (name) =>
      joinUnderRoot(normalizedRoot, LAYOUT_NAMES.teams, team(name), LAYOUT_NAMES.sidecar),
    sidecarPath: (name, fileName) =>
      joinUnderRoot(
        normalizedRoot,
        LAYOUT_NAMES.teams,
        team(name),
        LAYOUT_NAMES.sidecar,
        assertSafePathSegment(fileName, 'sidecar file name'),
      ),
    tasksRootDirectory: () => joinUnderRoot(normalizedRoot, LAYOUT_NAMES.tasks),
    tasksDirectory: (name) => joinUnderRoot(normalizedRoot, LAYOUT_NAMES.tasks, team(name)),
    taskPath: (name, taskId) =>
      joinUnderRoot(normalizedRoot, LAYOUT_NAMES.tasks, team(name), `${assertTaskId(taskId)}.json`),
    tasksLockPath: (name) =>
      joinUnderRoot(normalizedRoot, LAYOUT_NAMES.tasks, team(name), LAYOUT_NAMES.tasksLock),
    highWatermarkPath: (name) =>
      joinUnderRoot(normalizedRoot, LAYOUT_NAMES.tasks, team(name), LAYOUT_NAMES.highWatermark),
  };
  return layout;
}

/**
 * The root to use when none is given: `$MUSTER_HOME`, else `{home}/.muster`. Pure: the
 * caller passes the environment and home directory. (`--root ~/.claude` points muster at
 * Claude Code's own files.)
 */
export function defaultRoot(
  environment: Record<string, string | undefined>,
  homeDirectory: string,
) {
  const fromEnvironment = environment.MUSTER_HOME?.trim();
  if (fromEnvironment) return normalizePosixPath(fromEnvironment);
  return joinUnderRoot(homeDirectory, '.muster');
}
