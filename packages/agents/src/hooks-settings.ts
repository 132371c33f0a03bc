// Reading command hooks from settings files in Claude Code's shape:
// `{ "hooks": { "<Event>": [{ "matcher"?: "...", "hooks": [{ "type": "command", "command": "...", "timeout"?: seconds }] }] } }`.
// Only the team events muster runs are kept; a bad file is reported and the others still load.
import { readFile } from 'node:fs/promises';
import path from 'node:path';

/** The hook events muster runs. */
export const HOOK_EVENTS = [
  'SubagentStart',
  'SubagentStop',
  'TeammateIdle',
  'TaskCompleted',
] as const;

/** One of {@link HOOK_EVENTS}. */
export type HookEvent = (typeof HOOK_EVENTS)[number];

/** How long a hook command may run when its entry gives no `timeout` (60 s, as Claude Code). */
export const DEFAULT_HOOK_TIMEOUT_SECONDS = 60;

/** The largest settings file read (1 MiB). */
export const MAXIMUM_SETTINGS_BYTES = 1024 * 1024;

/** One configured hook command. */
export interface HookCommand {
  /** The event it runs on. */
  event: HookEvent;
  /** The matcher of its group (SubagentStart/SubagentStop: matched against `agent_type`). */
  matcher?: string;
  /** The shell command (`/bin/sh -c`). */
  command: string;
  /** Seconds before its process group is killed. */
  timeoutSeconds: number;
  /** The settings file it came from. */
  source: string;
}

/** A settings file that could not be used, or something to know about one. */
export interface HookSettingsProblem {
  /** The file. */
  path: string;
  /** What is wrong and what to do. */
  message: string;
}

/**
 * The settings files hooks are read from, in order: the user's `.claude/settings.json`,
 * `.muster/settings.json`, then the project's `.claude/settings.json`,
 * `.claude/settings.local.json`, `.muster/settings.json` and `.muster/settings.local.json`.
 * Hooks add up: every file's hooks run, in this order.
 */
export function hookSettingsFiles(cwd: string, home: string): string[] {
  return [
    path.join(home, '.claude', 'settings.json'),
    path.join(home, '.muster', 'settings.json'),
    path.join(cwd, '.claude', 'settings.json'),
    path.join(cwd, '.claude', 'settings.local.json'),
    path.join(cwd, '.muster', 'settings.json'),
    path.join(cwd, '.muster', 'settings.local.json'),
  ];
}

/** Reads the hooks of one settings file; a missing file gives nothing. */
export async function readHookSettings(
  file: string,
  problems: HookSettingsProblem[],
  notices: HookSettingsProblem[],
): Promise<HookCommand[]> {
  let text: string;
  try {
    const buffer = await readFile(file);
    if (buffer.length > MAXIMUM_SETTINGS_BYTES) {
      problems.push({
        path: file,
        message: `is ${buffer.length} bytes, more than the ${MAXIMUM_SETTINGS_BYTES} a settings file may have: its hooks are not loaded`,
      });
      return [];
    }
    text = buffer.toString('utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    problems.push({
      path: file,
      message: `cannot be read (${code ?? String(error)}): its hooks are not loaded`,
    });
    return [];
  }
  let settings: unknown;
  try {
    settings = JSON.parse(text);
  } catch (error) {
    problems.push({
      path: file,
      message: `is not valid JSON (${(error as Error).message}): fix it; its hooks are not loaded`,
    });
    return [];
  }
  if (!isRecord(settings)) {
    problems.push({ path: file, message: 'must hold a JSON object: its hooks are not loaded' });
    return [];
  }
  const hooks = settings['hooks'];
  if (hooks === undefined) return [];
  if (!isRecord(hooks)) {
    problems.push({
      path: file,
      message:
        '`hooks` must be an object of event names (e.g. {"TeammateIdle": [...]}): its hooks are not loaded',
    });
    return [];
  }
  const commands: HookCommand[] = [];
  for (const [event, groups] of Object.entries(hooks)) {
    if (!(HOOK_EVENTS as readonly string[]).includes(event)) {
      notices.push({
        path: file,
        message: `hooks for ${event} are not run by muster (it runs ${HOOK_EVENTS.join(', ')})`,
      });
      continue;
    }
    const where = `hooks.${event}`;
    if (!Array.isArray(groups)) {
      problems.push({
        path: file,
        message: `${where} must be a list of {matcher?, hooks: [...]}: skipped`,
      });
      continue;
    }
    for (const [groupIndex, group] of groups.entries()) {
      const groupWhere = `${where}[${groupIndex}]`;
      const parsed = parseGroup(group, event as HookEvent, file, groupWhere, problems);
      commands.push(...parsed);
    }
  }
  return commands;
}

function parseGroup(
  group: unknown,
  event: HookEvent,
  file: string,
  where: string,
  problems: HookSettingsProblem[],
): HookCommand[] {
  const skip = (message: string): HookCommand[] => {
    problems.push({ path: file, message: `${where} ${message}: skipped` });
    return [];
  };
  if (!isRecord(group) || !Array.isArray(group['hooks'])) {
    return skip('must be {"matcher"?: "...", "hooks": [{"type": "command", "command": "..."}]}');
  }
  const matcher = group['matcher'];
  if (matcher !== undefined && typeof matcher !== 'string')
    return skip('has a `matcher` that is not text');
  if (typeof matcher === 'string' && matcherPattern(matcher) === undefined) {
    return skip(
      `has a \`matcher\` ${JSON.stringify(matcher)} that is not a valid regular expression`,
    );
  }
  const commands: HookCommand[] = [];
  for (const [index, entry] of (group['hooks'] as unknown[]).entries()) {
    const entryWhere = `${where}.hooks[${index}]`;
    if (!isRecord(entry) || entry['type'] !== 'command') {
      problems.push({
        path: file,
        message: `${entryWhere} is not {"type": "command", …}: muster runs command hooks only; skipped`,
      });
      continue;
    }
    const command = entry['command'];
    if (typeof command !== 'string' || command.trim() === '') {
      problems.push({ path: file, message: `${entryWhere} has no \`command\` text: skipped` });
      continue;
    }
    const timeout = entry['timeout'] ?? DEFAULT_HOOK_TIMEOUT_SECONDS;
    if (
      typeof timeout !== 'number' ||
      !Number.isFinite(timeout) ||
      timeout <= 0 ||
      timeout > 86_400
    ) {
      problems.push({
        path: file,
        message: `${entryWhere} has a \`timeout\` ${JSON.stringify(timeout)} that is not a number of seconds between 0 and 86400: skipped`,
      });
      continue;
    }
    commands.push({
      event,
      ...(typeof matcher === 'string' && matcher !== '' ? { matcher } : {}),
      command,
      timeoutSeconds: timeout,
      source: file,
    });
  }
  return commands;
}

/**
 * How a matcher matches: empty or `*` matches everything; names joined by `|` (`Explore|Plan`)
 * match exactly; anything else is a regular expression tested against the value. Undefined
 * for an invalid regular expression.
 */
export function matcherPattern(matcher: string): ((value: string) => boolean) | undefined {
  if (matcher === '' || matcher === '*') return () => true;
  if (/^[A-Za-z0-9_|-]+$/.test(matcher)) {
    const names = matcher.split('|');
    return (value) => names.includes(value);
  }
  try {
    const expression = new RegExp(matcher);
    return (value) => expression.test(value);
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
