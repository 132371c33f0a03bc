// The spawn tool: `Task` (Claude Code 2.1.45's schema) or `Agent` (2.1.330's). One
// implementation routes each call to one of four paths: `team_name` + `name` → a teammate;
// `run_in_background` or the definition's `background` → a background agent; no
// `subagent_type` (Agent dialect) → a fork of the caller; else a synchronous subagent.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { PermissionMode } from '@muster/protocol';
import { ToolError } from '@muster/query';
import type {
  AnyTool,
  ModelClient,
  Tool,
  ToolAuthorizer,
  ToolContext,
  ToolResult,
} from '@muster/query';
import type { AgentDefinition } from './agent-definition.js';
import type { BackgroundAgents } from './background-agent.js';
import { runForkPath, takeForkSource } from './fork-path.js';
import { effectiveMode } from './spawn-tool-modes.js';
import type { Hooks } from './hooks.js';
import {
  AGENT_INPUT_JSON_SCHEMA,
  AgentInputSchema,
  TASK_INPUT_JSON_SCHEMA,
  TaskInputSchema,
  type SpawnInput,
  type SpawnToolDialect,
} from './spawn-tool-schemas.js';
import { formatSubagentResult, runSubagent, type SubagentOutcome } from './subagent.js';
import type { SpawnPath, TeamEventSink } from './team-event.js';

/** A teammate spawn the tool hands to the embedding runtime (see `spawnTeammate`). */
export interface TeammateSpawnRequest {
  name: string;
  teamName: string;
  prompt: string;
  description: string;
  definition: AgentDefinition;
  model?: string;
  mode?: string;
  isolation?: 'worktree';
}

/** A worktree made for one spawned agent. */
export interface SpawnWorktree {
  path: string;
  /** Removes it when clean; keeps it (and says so) when the agent left changes. */
  cleanup(): Promise<string | undefined>;
}

/** Options of {@link createSpawnTool}. */
export interface SpawnToolOptions {
  /** `2.1.45` offers `Task`, `2.1.330` offers `Agent` (forks need this dialect). */
  dialect: SpawnToolDialect;
  /** The agent types (`loadAgentDefinitions(...).definitions`). */
  definitions: readonly AgentDefinition[];
  client: ModelClient;
  /** The calling agent's model (the model chain's last link). */
  parentModel: string;
  /** The calling agent's name (events). */
  parentName: string;
  /** The calling agent's tools; subagents' pools are chosen from these, forks run them. */
  tools: () => readonly AnyTool[];
  /** An authorizer for a spawned agent in `mode` (undefined: the caller's own mode). */
  authorizerFor: (mode: PermissionMode | undefined) => ToolAuthorizer;
  /** Model variables and the environment tool processes start from. */
  environment: Readonly<Record<string, string | undefined>>;
  hooks?: Hooks;
  onEvent?: TeamEventSink;
  /** Background agents of the caller; without it background spawns are refused. */
  background?: BackgroundAgents;
  /**
   * The team the caller is in (its lead's team): `name` alone then spawns a teammate into it.
   * The 2.1.330 dialect always uses it (its `team_name` is accepted and ignored). A function is
   * asked at every call (a lead enters its team with TeamCreate after its tools were made).
   */
  teamName?: string | (() => string | undefined);
  /** The caller's permission mode: a spawned agent's mode is never wider (default `default`). */
  parentMode?: PermissionMode;
  /** Spawns a teammate (see `spawnTeammate`); without it teammate spawns are refused. */
  spawnTeammate?: (request: TeammateSpawnRequest, context: ToolContext) => Promise<ToolResult>;
  /** Creates a worktree for an isolated agent (`@muster/worktree`); without it isolation is refused. */
  createWorktree?: (agentId: string, cwd: string) => Promise<SpawnWorktree>;
  /** Where subagent transcripts go (`agent-<id>.jsonl`); none when absent. */
  transcriptDirectory?: string;
  /** Today as `YYYY-MM-DD` for subagent prompts (default: the current UTC date). */
  date?: string;
}

/**
 * Which path a call takes (seed 000 §2). `definition` is the resolved agent type, if any;
 * `callerTeam` the team the caller is in: with it, `name` alone makes a teammate (as both
 * Claude Code versions do inside a team).
 */
export function chooseSpawnPath(
  input: SpawnInput,
  definition: AgentDefinition | undefined,
  callerTeam?: string,
): SpawnPath {
  if (input.name !== undefined && (input.team_name ?? callerTeam) !== undefined) return 'teammate';
  if (
    ('run_in_background' in input && input.run_in_background === true) ||
    definition?.background === true
  ) {
    return 'background';
  }
  if (input.subagent_type === undefined) return 'fork';
  return 'subagent';
}

/** The tool's description: what it does and every agent type it can start. */
export function spawnToolDescription(
  dialect: SpawnToolDialect,
  definitions: readonly AgentDefinition[],
): string {
  const types = definitions.map((definition) => {
    const tools =
      definition.tools === undefined || definition.tools.includes('*')
        ? 'every tool'
        : definition.tools.join(', ');
    return `- ${definition.name}: ${definition.description} (tools: ${tools})`;
  });
  const fork =
    dialect === '2.1.330'
      ? ' Leave subagent_type out to fork yourself: the fork starts from this very conversation and works on the prompt you give it.'
      : '';
  return [
    `Starts an agent that works on a task for you. Pick the agent type with subagent_type.${fork} A synchronous agent returns its final report as this tool's result; with run_in_background it runs on while you continue and you are notified when it ends (read it with TaskOutput, stop it with TaskStop). With team_name and name it joins your team as a teammate you talk to with SendMessage.`,
    `Give each agent a complete, self-contained prompt: it does not see your conversation${dialect === '2.1.330' ? ' (a fork does)' : ''}.`,
    'Agent types:',
    ...types,
  ].join('\n');
}

const SPAWN_TOOL_NAMES: ReadonlySet<string> = new Set(['Task', 'Agent']);

/** What a fork child runs in place of the spawn tool: every call is a tool error (R13). */
function forkChildSpawnStub(tool: AnyTool): AnyTool {
  return {
    ...tool,
    async call() {
      throw new ToolError(
        'You are a fork and a fork cannot fork again or start other agents. Do the work yourself and report back.',
      );
    },
  };
}

function newAgentId(): string {
  return `a${randomBytes(8).toString('hex')}`;
}

function refusal(content: string): ToolResult {
  return { isError: true, content };
}

/** Creates the spawn tool. */
export function createSpawnTool(options: SpawnToolOptions): Tool<SpawnInput> {
  if (options.dialect !== '2.1.45' && options.dialect !== '2.1.330') {
    throw new TypeError(
      `createSpawnTool: dialect must be "2.1.45" (Task) or "2.1.330" (Agent), got ${JSON.stringify(options.dialect)}.`,
    );
  }
  const byName = new Map(options.definitions.map((definition) => [definition.name, definition]));
  const generalPurpose = byName.get('general-purpose');

  const transcriptOf = (agentId: string) =>
    options.transcriptDirectory === undefined
      ? {}
      : { transcriptPath: path.join(options.transcriptDirectory, `agent-${agentId}.jsonl`) };

  const prepareIsolation = async (
    input: SpawnInput,
    definition: AgentDefinition | undefined,
    agentId: string,
    cwd: string,
  ): Promise<SpawnWorktree | undefined | ToolResult> => {
    const isolation = ('isolation' in input ? input.isolation : undefined) ?? definition?.isolation;
    if (isolation === undefined) return undefined;
    if (isolation !== 'worktree')
      return refusal(
        `isolation "${isolation}" is not available in muster; use "worktree" or leave isolation out.`,
      );
    if (options.createWorktree === undefined)
      return refusal(
        'isolation "worktree" is not available here: this session cannot create worktrees. Leave isolation out.',
      );
    return options.createWorktree(agentId, cwd);
  };

  return {
    name: options.dialect === '2.1.45' ? 'Task' : 'Agent',
    description: spawnToolDescription(options.dialect, options.definitions),
    inputSchema: (options.dialect === '2.1.45'
      ? TaskInputSchema
      : AgentInputSchema) as unknown as Tool<SpawnInput>['inputSchema'],
    inputJsonSchema:
      options.dialect === '2.1.45' ? TASK_INPUT_JSON_SCHEMA : AGENT_INPUT_JSON_SCHEMA,
    isReadOnly: () => false,
    isConcurrencySafe: () => true,
    async call(input, context): Promise<ToolResult> {
      let definition: AgentDefinition | undefined;
      if (input.subagent_type !== undefined) {
        definition = byName.get(input.subagent_type);
        if (definition === undefined) {
          return refusal(
            `Unknown agent type "${input.subagent_type}". Known agent types: ${[...byName.keys()].join(', ')}.`,
          );
        }
      }
      const callerTeam =
        typeof options.teamName === 'function' ? options.teamName() : options.teamName;
      const route = chooseSpawnPath(input, definition, callerTeam);
      const agentId = newAgentId();
      if (route === 'teammate') {
        if (options.spawnTeammate === undefined)
          return refusal(
            'Teammates cannot be spawned here: this agent leads no team. Leave team_name and name out to start a subagent.',
          );
        const chosen = definition ?? generalPurpose;
        if (chosen === undefined)
          return refusal(
            'Give subagent_type: there is no general-purpose agent type to spawn the teammate from.',
          );
        const isolation = ('isolation' in input ? input.isolation : undefined) ?? chosen.isolation;
        if (isolation === 'remote')
          return refusal(
            'isolation "remote" is not available in muster; use "worktree" or leave isolation out.',
          );
        const teammateMode = effectiveMode(
          input.mode,
          options.parentMode ?? 'default',
          'The spawn call',
        );
        if (teammateMode.notice !== undefined) {
          options.onEvent?.({
            type: 'notice',
            level: 'warning',
            text: teammateMode.notice,
            at: Date.now(),
          });
        }
        return options.spawnTeammate(
          {
            name: input.name!,
            teamName:
              options.dialect === '2.1.330'
                ? (callerTeam ?? input.team_name!)
                : (input.team_name ?? callerTeam!),
            prompt: input.prompt,
            description: input.description,
            definition: chosen,
            ...(input.model === undefined ? {} : { model: input.model }),
            ...(teammateMode.mode === undefined ? {} : { mode: teammateMode.mode }),
            ...(isolation === undefined ? {} : { isolation }),
          },
          context,
        );
      }
      if (route === 'fork') {
        const source = takeForkSource(context);
        const worktree = await prepareIsolation(input, undefined, agentId, context.cwd);
        if (worktree !== undefined && !('path' in worktree)) return worktree;
        options.onEvent?.({
          type: 'spawn',
          path: 'fork',
          agentName: agentId,
          agentType: 'fork',
          parentName: options.parentName,
          at: Date.now(),
        });
        let outcome: SubagentOutcome | undefined;
        let failure: unknown;
        try {
          outcome = await runForkPath({
            context,
            source,
            directive: input.prompt,
            agentId,
            client: options.client,
            tools: options
              .tools()
              .map((tool) => (SPAWN_TOOL_NAMES.has(tool.name) ? forkChildSpawnStub(tool) : tool)),
            cwd: worktree?.path ?? context.cwd,
            roots:
              worktree === undefined
                ? () => context.roots
                : () => ({ read: [...context.roots.read, worktree.path], write: [worktree.path] }),
            authorize: options.authorizerFor(undefined),
            environment: options.environment,
            signal: context.signal,
            ...(worktree === undefined
              ? {}
              : { worktree: { parentCwd: context.cwd, path: worktree.path } }),
            ...transcriptOf(agentId),
          });
        } catch (error) {
          failure = error;
        }
        const kept = await worktree?.cleanup();
        const status =
          outcome === undefined
            ? 'failed'
            : outcome.reason === 'completed'
              ? 'completed'
              : outcome.reason === 'aborted'
                ? 'killed'
                : 'failed';
        options.onEvent?.({
          type: 'spawn_end',
          path: 'fork',
          agentName: agentId,
          status,
          at: Date.now(),
        });
        if (outcome === undefined) throw failure;
        return {
          content: formatSubagentResult(agentId, outcome) + (kept === undefined ? '' : `\n${kept}`),
          isError: status !== 'completed',
          data: outcome,
        };
      }
      if (definition === undefined)
        return refusal('Give subagent_type: the Task tool needs an agent type.');
      const chosen = definition;
      const worktree = await prepareIsolation(input, chosen, agentId, context.cwd);
      if (worktree !== undefined && !('path' in worktree)) return worktree;
      const cwd = worktree?.path ?? context.cwd;
      const subagent = (
        signal: AbortSignal,
        async: boolean,
        onAgentEvent?: Parameters<typeof runSubagent>[0]['onAgentEvent'],
      ) =>
        runSubagent({
          definition: chosen,
          prompt: input.prompt,
          agentId,
          parentName: options.parentName,
          ...(context.agent.teamName === undefined ? {} : { teamName: context.agent.teamName }),
          client: options.client,
          parentModel: options.parentModel,
          ...(input.model === undefined ? {} : { toolModel: input.model }),
          availableTools: options.tools(),
          async,
          cwd,
          roots:
            worktree === undefined
              ? () => context.roots
              : () => ({ read: [...context.roots.read, worktree.path], write: [worktree.path] }),
          authorizerFor: options.authorizerFor,
          ...(options.parentMode === undefined ? {} : { parentMode: options.parentMode }),
          environment: options.environment,
          signal,
          ...(options.hooks === undefined ? {} : { hooks: options.hooks }),
          ...(options.onEvent === undefined ? {} : { onEvent: options.onEvent }),
          ...(onAgentEvent === undefined ? {} : { onAgentEvent }),
          ...transcriptOf(agentId),
          ...('max_turns' in input && input.max_turns !== undefined
            ? { maxTurns: input.max_turns }
            : {}),
          ...(options.date === undefined ? {} : { date: options.date }),
        });
      if (route === 'background') {
        const background = options.background;
        if (background === undefined) {
          await worktree?.cleanup();
          return refusal(
            'Background agents are not available here. Leave run_in_background out to run the agent and wait for its report.',
          );
        }
        const task = await background.launch({
          taskId: agentId,
          agentType: chosen.name,
          description: input.description,
          run: (signal, onAgentEvent) => subagent(signal, true, onAgentEvent),
          ...(worktree === undefined ? {} : { cleanup: () => worktree.cleanup() }),
        });
        context.onAgentClose(async () => {
          await background.stop(task.taskId, 'The agent that started it closed.');
        });
        return {
          content: `Background agent started.\nagentId: ${task.taskId}\nIt works on "${input.description}" while you continue; you will get a <task-notification> when it ends. Its output file is ${task.outputFile}. Use TaskOutput to check on it and TaskStop to stop it. Do not repeat its work meanwhile.`,
          data: task,
        };
      }
      options.onEvent?.({
        type: 'spawn',
        path: 'subagent',
        agentName: agentId,
        agentType: chosen.name,
        parentName: options.parentName,
        at: Date.now(),
      });
      let outcome: SubagentOutcome;
      try {
        outcome = await subagent(context.signal, false);
      } catch (error) {
        await worktree?.cleanup();
        options.onEvent?.({
          type: 'spawn_end',
          path: 'subagent',
          agentName: agentId,
          status: 'failed',
          message: String(error),
          at: Date.now(),
        });
        throw error;
      }
      const kept = await worktree?.cleanup();
      const status =
        outcome.reason === 'completed'
          ? 'completed'
          : outcome.reason === 'aborted'
            ? 'killed'
            : 'failed';
      options.onEvent?.({
        type: 'spawn_end',
        path: 'subagent',
        agentName: agentId,
        status,
        at: Date.now(),
      });
      return {
        content: formatSubagentResult(agentId, outcome) + (kept === undefined ? '' : `\n${kept}`),
        isError: status !== 'completed',
        data: outcome,
      };
    },
  };
}
