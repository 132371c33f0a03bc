// Command hooks for the team events (SubagentStart, SubagentStop, TeammateIdle, TaskCompleted)
// with Claude Code's exit-code meaning: 0 goes on, 2 blocks and feeds stderr back, anything
// else is a notice. What blocking means is the caller's: a TeammateIdle block keeps the
// teammate working with stderr as its next message; a TaskCompleted block refuses the
// completion with stderr as the reason; a SubagentStop block gives stderr to the subagent.
import path from 'node:path';
import { scrubEnvironment } from '@muster/query';
import { z } from 'zod';
import { HookError } from './hooks-error.js';
import { runHookCommand, type HookCommandResult } from './hooks-run.js';
import {
  HOOK_EVENTS,
  hookSettingsFiles,
  matcherPattern,
  readHookSettings,
  type HookCommand,
  type HookEvent,
  type HookSettingsProblem,
} from './hooks-settings.js';

const text = z.string().min(1);
const common = {
  session_id: z.string().optional(),
  transcript_path: z.string().optional(),
  cwd: z.string().optional(),
};

/** The payload each event's command gets on stdin (beside `hook_event_name`), as seed 004 lists it. */
export const HOOK_PAYLOAD_SCHEMAS = {
  SubagentStart: z.looseObject({ ...common, agent_id: text, agent_type: text }),
  SubagentStop: z.looseObject({
    ...common,
    agent_id: text,
    agent_type: text,
    agent_transcript_path: z.string(),
  }),
  TeammateIdle: z.looseObject({ ...common, teammate_name: text, team_name: text }),
  TaskCompleted: z.looseObject({
    ...common,
    task_id: text,
    task_subject: z.string(),
    task_description: z.string(),
    teammate_name: z.string().optional(),
    team_name: z.string().optional(),
  }),
} as const;

/** The payload of `event`. */
export type HookPayload<Event extends HookEvent> = z.infer<(typeof HOOK_PAYLOAD_SCHEMAS)[Event]>;

/** Options of {@link Hooks.runHook}. */
export interface RunHookOptions {
  /** Ends every running command of this event (its process group) when aborted. */
  signal?: AbortSignal;
  /** The environment commands start from (default `process.env`); credentials are removed. */
  environment?: Readonly<Record<string, string | undefined>>;
  /** The directory commands start in (default the `cwd` given to `loadHooks`). */
  cwd?: string;
}

/** What the hooks of one event decided. */
export interface HookRunResult {
  /** True when a command exited with 2: the caller blocks (see the file comment for what that means). */
  blocked: boolean;
  /** The blocking commands' stderr, joined by blank lines (what to feed back). */
  message?: string;
  /** Standard output of the commands that exited 0 and printed something (SubagentStart: context for the subagent). */
  outputs: string[];
  /** Commands that failed, timed out or were aborted: one line each for a person. */
  notices: string[];
  /** Every command that ran, in configuration order. */
  results: HookCommandResult[];
}

/** The hooks loaded for one directory. */
export interface Hooks {
  /** Every configured command of the muster events, in file order. */
  readonly commands: readonly HookCommand[];
  /** Settings files (or parts of them) that could not be used. */
  readonly problems: readonly HookSettingsProblem[];
  /** Things to know: hooks for events muster does not run. */
  readonly notices: readonly HookSettingsProblem[];
  /** True when `event` has at least one command. */
  has(event: HookEvent): boolean;
  /**
   * Runs the commands of `event` whose matcher fits (SubagentStart/SubagentStop: `agent_type`),
   * all at once, each with `{ hook_event_name, cwd, ...payload }` as JSON on stdin. Resolves
   * when all have ended. Throws `HookError('INVALID_INPUT')` for an unknown event or a payload
   * missing a field.
   */
  runHook<Event extends HookEvent>(
    event: Event,
    payload: HookPayload<Event>,
    options?: RunHookOptions,
  ): Promise<HookRunResult>;
}

/** Options of {@link loadHooks}. */
export interface LoadHooksOptions {
  /** The project directory. */
  cwd: string;
  /** The user's home. */
  home: string;
}

/**
 * Reads `hooks` from the settings files of {@link hookSettingsFiles} (`.claude` read for
 * compatibility, `.muster` for muster's own); hooks of every file add up. A file that cannot be
 * used is a problem and the others still load. Throws `HookError('INVALID_INPUT')` for a
 * relative `cwd` or `home`.
 */
export async function loadHooks(options: LoadHooksOptions): Promise<Hooks> {
  const cwd = absolute(options?.cwd, 'cwd');
  const home = absolute(options?.home, 'home');
  const problems: HookSettingsProblem[] = [];
  const notices: HookSettingsProblem[] = [];
  const commands: HookCommand[] = [];
  const files = [...new Set(hookSettingsFiles(cwd, home))];
  for (const file of files) commands.push(...(await readHookSettings(file, problems, notices)));
  return {
    commands,
    problems,
    notices,
    has: (event) => commands.some((command) => command.event === event),
    runHook: (event, payload, runOptions = {}) =>
      runEvent(commands, cwd, event, payload, runOptions),
  };
}

async function runEvent<Event extends HookEvent>(
  commands: readonly HookCommand[],
  defaultCwd: string,
  event: Event,
  payload: HookPayload<Event>,
  options: RunHookOptions,
): Promise<HookRunResult> {
  if (!(HOOK_EVENTS as readonly string[]).includes(event)) {
    throw new HookError({
      code: 'INVALID_INPUT',
      message: `runHook: ${JSON.stringify(event)} is not a hook event muster runs: use one of ${HOOK_EVENTS.join(', ')}.`,
    });
  }
  const parsed = HOOK_PAYLOAD_SCHEMAS[event].safeParse(payload);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new HookError({
      code: 'INVALID_INPUT',
      message: `runHook(${event}): the payload's \`${issue.path.join('.')}\` is wrong (${issue.message}); ${event} needs ${Object.keys(HOOK_PAYLOAD_SCHEMAS[event].shape).join(', ')}.`,
    });
  }
  const cwd = options.cwd === undefined ? defaultCwd : absolute(options.cwd, 'cwd');
  const agentType = (payload as { agent_type?: string }).agent_type;
  const selected = commands.filter(
    (command) =>
      command.event === event &&
      (command.matcher === undefined ||
        agentType === undefined ||
        matcherPattern(command.matcher)!(agentType)),
  );
  const input = JSON.stringify({ hook_event_name: event, cwd, ...payload });
  const environment = {
    ...scrubEnvironment(options.environment ?? process.env),
    MUSTER_PROJECT_DIR: defaultCwd,
    CLAUDE_PROJECT_DIR: defaultCwd,
  };
  const results = await Promise.all(
    selected.map((command) =>
      runHookCommand(command, input, {
        cwd,
        environment,
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      }),
    ),
  );
  const blocking = results.filter((result) => result.outcome === 'block');
  const messages = blocking.map(
    (result) =>
      result.stderr.trim() || `The ${event} hook "${result.command}" blocked without saying why.`,
  );
  return {
    blocked: blocking.length > 0,
    ...(blocking.length > 0 ? { message: messages.join('\n\n') } : {}),
    outputs: results
      .filter((result) => result.outcome === 'continue' && result.stdout.trim() !== '')
      .map((result) => result.stdout),
    notices: results
      .filter((result) => result.outcome === 'error')
      .map((result) => noticeOf(event, result)),
    results,
  };
}

function noticeOf(event: HookEvent, result: HookCommandResult): string {
  const what = `The ${event} hook "${result.command}" (${result.source})`;
  const stderr = result.stderr.trim() === '' ? '' : `: ${result.stderr.trim().slice(0, 2000)}`;
  if (result.timedOut) return `${what} ran past its timeout; its process group was killed${stderr}`;
  if (result.aborted) return `${what} was stopped because the run was aborted`;
  if (result.exitCode === null) return `${what} did not finish normally${stderr}`;
  return `${what} exited with ${result.exitCode}; going on${stderr}`;
}

function absolute(value: unknown, name: string): string {
  if (typeof value !== 'string' || !path.isAbsolute(value)) {
    throw new HookError({
      code: 'INVALID_INPUT',
      message: `hooks: \`${name}\` must be an absolute directory path, got ${JSON.stringify(value)}.`,
    });
  }
  return path.resolve(value);
}
