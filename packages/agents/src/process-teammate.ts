// A muster teammate in its own process (a tmux/iTerm2 pane or a PTY): what `muster teammate`
// and `dist/teammate-main.js` run. It parses Claude Code's identity flags, connects back to
// its lead, builds its model client, tools and prompt from what it was given, runs the
// teammate loop with the lead's verify key and shows the conversation on its terminal.
import { homedir } from 'node:os';
import { connectToLead, type MemberLink } from '@muster/backends';
import { BACKEND_TYPES, defaultRoot, type BackendType, type TeamMember } from '@muster/protocol';
import { createModelClient, resolveModelName, type ModelClient } from '@muster/query';
import { readTeam } from '@muster/teams';
import { createBuiltInTools } from '@muster/tools';
import type { AgentDefinition } from './agent-definition.js';
import { loadAgentDefinitions } from './agent-definitions.js';
import { resolveAgentModel } from './agent-model.js';
import {
  parseProcessTeammateFlags,
  PROCESS_TEAMMATE_USAGE,
  ProcessTeammateUsageError,
  type ProcessTeammateFlags,
} from './process-teammate-flags.js';
import { createPaneDisplay, type DisplayOutput } from './process-teammate-display.js';
import { buildSystemPrompt } from './system-prompt.js';
import { DEFAULT_AGENT_PROMPT, teammateCommunicationSection } from './system-prompt-defaults.js';
import { runTeammate } from './teammate.js';
import { resolveToolPool } from './tool-pool.js';

/**
 * The variable a lead sets in a process member's environment to say which backend runs it
 * (`tmux`, `iterm2`, `pty`); the member writes it into its `shutdown_approved` and sidecar.
 */
export const BACKEND_TYPE_VARIABLE = 'MUSTER_BACKEND_TYPE';

/** Exit codes of a process teammate. */
export const PROCESS_TEAMMATE_EXIT_CODES = Object.freeze({
  /** It approved the lead's shutdown request. */
  shutdown: 0,
  /** Something failed (the message is on stderr), or the lead is gone. */
  failed: 1,
  /** A bad command line. */
  usage: 2,
  /** Ended by SIGHUP, SIGINT or SIGTERM (128 + the signal's number). */
  SIGHUP: 129,
  SIGINT: 130,
  SIGTERM: 143,
});

/** Options of {@link runProcessTeammate}. */
export interface ProcessTeammateOptions {
  /** The arguments (without `node` and the script, and without `teammate`). */
  argv: readonly string[];
  /**
   * Its environment: model credentials (`ANTHROPIC_API_KEY` or `ANTHROPIC_AUTH_TOKEN`,
   * `ANTHROPIC_BASE_URL`), the lead link (`MUSTER_LEAD_SOCKET`, `MUSTER_AGENT_ID`,
   * `MUSTER_MEMBER_SECRET`), `MUSTER_HOME`, `MUSTER_BACKEND_TYPE`, `TMUX_PANE`, `NO_COLOR`;
   * its tools start from it (without the credentials and the lead link).
   */
  environment: Readonly<Record<string, string | undefined>>;
  /** Where the conversation is shown (the pane). */
  stdout: DisplayOutput;
  /** Where errors go (default `process.stderr`). */
  stderr?: DisplayOutput;
  /**
   * Ends the teammate (its turn and loop). Abort it with the signal's name (`'SIGTERM'`) as the
   * reason to get that signal's exit code.
   */
  signal?: AbortSignal;
  /** The root when `--root` is not given (default `MUSTER_HOME`, else `~/.muster`). */
  root?: string;
  /** The working directory when `--cwd` is not given (default `process.cwd()`). */
  cwd?: string;
  /** Home directory for agent definitions and permissions (default `os.homedir()`). */
  homeDirectory?: string;
  /** Called when the lead link closes without this teammate closing it, after the teammate was told to stop. */
  onLeadGone?: (reason: string) => void;
  /** Passed to `connectToLead` (default true: whatever ends this process ends what it started). */
  endOwnProcesses?: boolean;
  /** Colors on `stdout` (default: it is a terminal and `NO_COLOR` is not set). */
  color?: boolean;
  /** Replaces the network of the model client (tests). */
  fetch?: typeof fetch;
}

class StartupError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value !== undefined && value.trim() !== '' ? value : undefined;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The model client from the credentials in `environment` (never from anywhere else). */
function modelClientFrom(
  environment: ProcessTeammateOptions['environment'],
  fetchFunction: typeof fetch | undefined,
): ModelClient {
  const apiKey = nonEmpty(environment.ANTHROPIC_API_KEY);
  const authToken = nonEmpty(environment.ANTHROPIC_AUTH_TOKEN);
  const baseURL = nonEmpty(environment.ANTHROPIC_BASE_URL);
  if (apiKey === undefined && authToken === undefined) {
    throw new StartupError(
      'no model credentials: ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN) is not set for this teammate. Backends remove credentials from members; the lead passes them explicitly (spawnTeammate/teammateSpawnHandler option modelEnvironment).',
      1,
    );
  }
  if (apiKey === undefined && process.env.ANTHROPIC_AUTH_TOKEN !== authToken) {
    throw new StartupError(
      'ANTHROPIC_AUTH_TOKEN is given without ANTHROPIC_API_KEY in an environment that is not this process’s own; createModelClient reads a token only from the process environment. Pass ANTHROPIC_API_KEY, or run the teammate with the token in its process environment.',
      1,
    );
  }
  return createModelClient({
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(baseURL === undefined ? {} : { baseURL }),
    ...(fetchFunction === undefined ? {} : { fetch: fetchFunction }),
  });
}

function backendOf(environment: ProcessTeammateOptions['environment']): {
  backendType?: BackendType;
  paneId?: string;
} {
  const named = environment[BACKEND_TYPE_VARIABLE];
  if (named === undefined || named === '') return {};
  if (!(BACKEND_TYPES as readonly string[]).includes(named) || named === 'in-process') {
    throw new StartupError(
      `${BACKEND_TYPE_VARIABLE}=${JSON.stringify(named)} is not a process backend (tmux, iterm2, pty).`,
      1,
    );
  }
  const backendType = named as BackendType;
  const paneId =
    backendType === 'tmux'
      ? nonEmpty(environment.TMUX_PANE)
      : backendType === 'iterm2'
        ? nonEmpty(environment.ITERM_SESSION_ID)
        : undefined;
  return { backendType, ...(paneId === undefined ? {} : { paneId }) };
}

async function definitionOf(
  flags: ProcessTeammateFlags,
  cwd: string,
  home: string,
  report: (line: string) => void,
): Promise<AgentDefinition> {
  const loaded = await loadAgentDefinitions({ cwd, home });
  for (const problem of loaded.problems) report(`note: ${problem.path}: ${problem.message}`);
  const definition = loaded.definitions.get(flags.agentType);
  if (definition === undefined) {
    throw new StartupError(
      `muster teammate: --agent-type ${JSON.stringify(flags.agentType)} is not an agent type here (known: ${[...loaded.definitions.keys()].join(', ')}).`,
      2,
    );
  }
  return definition;
}

function signalExitCode(reason: unknown): number {
  return reason === 'SIGHUP' || reason === 'SIGINT' || reason === 'SIGTERM'
    ? PROCESS_TEAMMATE_EXIT_CODES[reason]
    : PROCESS_TEAMMATE_EXIT_CODES.SIGINT;
}

/**
 * Runs one process teammate to its end and returns its exit code: 0 after it approved the
 * lead's shutdown request, 1 on a failure or when the lead is gone (the message on stderr), 2
 * for a bad command line (one line naming the flag), 128 + n when `signal` was aborted with a
 * signal's name. Ends everything it started before it returns. Never throws.
 */
export async function runProcessTeammate(options: ProcessTeammateOptions): Promise<number> {
  const stderr: DisplayOutput = options.stderr ?? process.stderr;
  const fail = (message: string, exitCode: number): number => {
    stderr.write(`${message.replace(/\s*\n\s*/g, ' ')}\n`);
    return exitCode;
  };
  let flags: ProcessTeammateFlags;
  try {
    flags = parseProcessTeammateFlags(options.argv);
  } catch (error) {
    if (error instanceof ProcessTeammateUsageError) return fail(error.message, 2);
    throw error;
  }
  if (flags.help) {
    options.stdout.write(`${PROCESS_TEAMMATE_USAGE}\n`);
    return 0;
  }
  if (flags.leadVerifyKey === undefined) {
    return fail(
      'muster teammate: --lead-verify-key is required: without the lead’s key the teammate could not tell its lead’s shutdown request from a forgery (the lead passes it: createMemberKey(name).launchArguments).',
      2,
    );
  }
  const environment = options.environment;
  const display = createPaneDisplay({
    output: options.stdout,
    environment,
    ...(options.color === undefined ? {} : { color: options.color }),
  });
  const home = options.homeDirectory ?? homedir();
  const root = flags.root ?? options.root ?? defaultRoot({ ...environment }, home);
  const cwd = flags.cwd ?? options.cwd ?? process.cwd();
  const stop = new AbortController();
  const outer = options.signal;
  const onOuterAbort = () => stop.abort(outer?.reason);
  if (outer?.aborted) return signalExitCode(outer.reason);
  outer?.addEventListener('abort', onOuterAbort, { once: true });
  let leadGone: string | undefined;
  let link: MemberLink | undefined;
  try {
    const agentIdVariable = environment.MUSTER_AGENT_ID;
    if (agentIdVariable !== undefined && agentIdVariable !== flags.agentId) {
      throw new StartupError(
        `MUSTER_AGENT_ID is ${JSON.stringify(agentIdVariable)} but --agent-id is ${JSON.stringify(flags.agentId)}: the lead link and the command line must name the same member.`,
        1,
      );
    }
    const backend = backendOf(environment);
    const config = await readTeam(root, flags.teamName).catch((error: unknown) => {
      throw new StartupError(
        `cannot read team "${flags.teamName}" under ${root}: ${messageOf(error)} (pass --root, or set MUSTER_HOME, to the lead's root).`,
        1,
      );
    });
    const member: TeamMember | undefined = config.members.find(
      (entry) => entry.name === flags.agentName,
    );
    if (member === undefined) {
      throw new StartupError(
        `"${flags.agentName}" is not a member of team "${flags.teamName}" (${root}): the lead registers a teammate before it starts it.`,
        1,
      );
    }
    const definition = await definitionOf(flags, cwd, home, (text) => display.line(text, 'dim'));
    const model =
      flags.model === undefined
        ? resolveAgentModel({ environment, definition, parentModel: member.model ?? 'sonnet' })
            .model
        : resolveModelName(flags.model, { environment });
    const client = modelClientFrom(environment, options.fetch);
    const pool = resolveToolPool({
      available: createBuiltInTools(),
      definition,
      async: false,
      teammate: true,
    });
    const promptOptions = {
      agentName: flags.agentName,
      teamName: flags.teamName,
      planModeRequired: flags.planModeRequired,
    };
    // As the lead runtime builds an in-process teammate's prompt: a definition file's prompt
    // (a built-in's is muster's default), then the environment, then the team section.
    const systemPrompt = buildSystemPrompt({
      ...(definition.source === 'built-in' ? {} : { agentPrompt: definition.systemPrompt }),
      defaultPrompt: DEFAULT_AGENT_PROMPT,
      append: teammateCommunicationSection(promptOptions),
      environment: {
        cwd,
        model,
        toolNames: pool.tools.map((tool) => tool.name),
        platform: process.platform,
        date: new Date().toISOString().slice(0, 10),
      },
    });
    try {
      link = await connectToLead({
        ...(environment.MUSTER_LEAD_SOCKET === undefined
          ? {}
          : { socketPath: environment.MUSTER_LEAD_SOCKET }),
        agentId: flags.agentId,
        ...(environment.MUSTER_MEMBER_SECRET === undefined
          ? {}
          : { secret: environment.MUSTER_MEMBER_SECRET }),
        endOwnProcesses: options.endOwnProcesses ?? true,
        onLeadGone: (reason) => {
          leadGone = reason;
          display.line(`✗ ${reason}: ${flags.agentName} stops.`, 'error');
          stop.abort('lead gone');
          options.onLeadGone?.(reason);
        },
      });
    } catch (error) {
      throw new StartupError(`cannot connect back to the lead: ${messageOf(error)}`, 1);
    }
    const memberLink = link;
    display.line(
      `${flags.agentId} · ${definition.name} · ${model}${backend.backendType === undefined ? '' : ` · ${backend.backendType}`} · ${cwd}`,
      'dim',
    );
    const exit = await runTeammate({
      root,
      teamName: flags.teamName,
      agentName: flags.agentName,
      agentId: flags.agentId,
      color: flags.color,
      cwd,
      client,
      model,
      systemPrompt,
      tools: pool.tools,
      leadTrust: { verifyKey: flags.leadVerifyKey },
      signal: stop.signal,
      onEvent: display.onEvent,
      environment,
      homeDirectory: home,
      planModeRequired: flags.planModeRequired,
      ...(flags.permissionMode === undefined ? {} : { permissionMode: flags.permissionMode }),
      ...backend,
      onReady: () => void memberLink.ready(),
    });
    if (exit.reason === 'shutdown') {
      display.line(`── ${exit.message} Bye. ──`, 'end');
      return PROCESS_TEAMMATE_EXIT_CODES.shutdown;
    }
    if (leadGone !== undefined) {
      return fail(`muster teammate ${flags.agentId}: ${leadGone}; ended.`, 1);
    }
    if (exit.reason === 'aborted') {
      display.line(
        `── ${flags.agentName} was stopped (${String(outer?.reason ?? 'aborted')}). ──`,
        'end',
      );
      return signalExitCode(outer?.reason);
    }
    display.line(`── ${exit.message} ──`, 'error');
    return fail(`muster teammate ${flags.agentId}: ${exit.message}`, 1);
  } catch (error) {
    if (error instanceof StartupError) {
      return fail(
        error.message.startsWith('muster teammate')
          ? error.message
          : `muster teammate ${flags.agentId}: ${error.message}`,
        error.exitCode,
      );
    }
    return fail(`muster teammate ${flags.agentId}: ${messageOf(error)}`, 1);
  } finally {
    outer?.removeEventListener('abort', onOuterAbort);
    link?.close();
  }
}
