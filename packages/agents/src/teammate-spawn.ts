// The teammate path: a unique name and color in the team config, a backend chosen by
// @muster/backends' `chooseBackend`, the spawn prompt written to the teammate's inbox as its
// first message, the member started (in-process: the caller's `runInProcess`, normally
// `runTeammate`; process backends: a command, by default the built process teammate
// `node dist/teammate-main.js` with Claude Code's flag names and the member's lead verify key),
// its pane recorded, the member monitor watching it, and the spawn result text.
import type { Mailbox } from '@muster/mailbox';
import {
  chooseBackend,
  claudeCodeTeammateCommand,
  type Backend,
  type InProcessMemberContext,
  type MemberHandle,
  type MemberMonitor,
  type ReadinessSignal,
} from '@muster/backends';
import type { LeadKeyring } from '@muster/permissions';
import type { BackendType, PermissionMode, TeamMember } from '@muster/protocol';
import { addMember, leaveUnchanged, readTeam, removeMember, updateTeamConfig } from '@muster/teams';
import type { ToolResult } from '@muster/query';
import type { AgentDefinition } from './agent-definition.js';
import { resolveAgentModel } from './agent-model.js';
import type { SpawnWorktree, TeammateSpawnRequest } from './spawn-tool.js';
import type { SpawnToolDialect } from './spawn-tool-schemas.js';
import type { TeamEventSink } from './team-event.js';
import { BACKEND_TYPE_VARIABLE } from './process-teammate.js';
import { PROCESS_TEAMMATE_ENTRY } from './process-teammate-command.js';
import { checkModelEnvironment } from './teammate-spawn-environment.js';

/** Who was registered: what `runInProcess` and `command` are told. */
export interface SpawnedMemberInfo {
  agentName: string;
  agentId: string;
  color: string;
  model: string;
  cwd: string;
  prompt: string;
  definition: AgentDefinition;
  planModeRequired: boolean;
  mode?: PermissionMode;
  leadSessionId: string;
}

/** Options of {@link spawnTeammate}. */
export interface SpawnTeammateOptions {
  root: string;
  teamName: string;
  /** The requested name; a taken one gets a suffix (`-2`, …) as the teams package offers. */
  name: string;
  prompt: string;
  /** Shown as the first message's summary. */
  description?: string;
  definition: AgentDefinition;
  /** The resolved model id (see `resolveAgentModel`). */
  model: string;
  cwd: string;
  planModeRequired?: boolean;
  mode?: PermissionMode;
  /** Its worktree, recorded in the team config. */
  worktreePath?: string;
  /** The lead's name (default `team-lead`): the first message's sender. */
  leadName?: string;
  /** The lead's mailbox (signing what it writes, for a v2 team). */
  mailbox: Mailbox;
  /** `auto` or a backend name, the backends this build offers, and the lead's environment. */
  backend: {
    requested: 'auto' | BackendType;
    backends: readonly Backend[];
    environment: Readonly<Record<string, string | undefined>>;
  };
  /** The in-process member's body (normally `runTeammate`); required for the in-process backend. */
  runInProcess?: (context: InProcessMemberContext, member: SpawnedMemberInfo) => Promise<void>;
  /**
   * Process backends: the program and leading arguments; Claude Code's identity flags (and the
   * member's `--lead-verify-key`) follow. Default: the built process teammate,
   * `process.execPath [PROCESS_TEAMMATE_ENTRY]` (what `muster teammate` runs), so no `muster`
   * needs to be on the PATH.
   */
  command?: { file: string; args?: readonly string[] };
  /** Extra environment for a process member. */
  environment?: Record<string, string>;
  /**
   * The lead's keyring (`createLeadKeyring` of @muster/permissions; its `mailboxOptions()` must
   * sign `mailbox`). For a process member that connects back, its key is made with
   * `createMemberKey` before the spawn prompt is written (so that message is signed for it) and
   * its `launchArguments` (`--lead-verify-key …`) go on the command line. Required for the
   * default command; in-process members do not use it (they verify against the ledger).
   */
  keyring?: Pick<LeadKeyring, 'createMemberKey' | 'forgetMember'>;
  /**
   * The model credentials a process member needs (`ANTHROPIC_API_KEY` or
   * `ANTHROPIC_AUTH_TOKEN`, `ANTHROPIC_BASE_URL`; `pickModelEnvironment(lead environment)` picks
   * them). Backends strip credentials from members' environments unless the spec gives them:
   * these are given only to process members, never to in-process members or their tools.
   */
  modelEnvironment?: Record<string, string>;
  /** `connect-back` (muster) or `external` (a real Claude Code teammate). */
  readiness?: ReadinessSignal;
  readyTimeoutMs?: number;
  /** Watches the member once started. */
  monitor?: MemberMonitor;
  onEvent?: TeamEventSink;
  /** The result text's dialect (default 2.1.45). */
  dialect?: SpawnToolDialect;
  /** Told about every teammate started (its handle included), before the result is returned. */
  onSpawned?: (spawned: SpawnedTeammate) => void;
}

/** A started teammate. */
export interface SpawnedTeammate {
  member: TeamMember;
  handle: MemberHandle;
  backendType: BackendType;
  /** The tool result text (FORMAT.md's shape). */
  text: string;
  /** Backend choice notices (also sent as `notice` events). */
  notices: string[];
}

/** The spawn result text as each dialect's FORMAT.md shows it. */
export function formatSpawnResult(
  dialect: SpawnToolDialect,
  fields: { agentId: string; name: string; teamName: string },
): string {
  const lines =
    dialect === '2.1.45'
      ? [
          'Spawned successfully.',
          `agent_id: ${fields.agentId}`,
          `name: ${fields.name}`,
          `team_name: ${fields.teamName}`,
        ]
      : ['Spawned successfully.', `agent_id: ${fields.agentId}`, `name: ${fields.name}`];
  lines.push(
    'The teammate is running; it gets its instructions through its inbox. Talk to it with SendMessage.',
  );
  return lines.join('\n');
}

/**
 * The process command of a teammate: `command` (default `process.execPath
 * [PROCESS_TEAMMATE_ENTRY]`, the built process teammate) plus Claude Code's identity flags and
 * `launchArguments` (the member key's `--lead-verify-key <key>`).
 */
export function teammateCommand(
  base: { file: string; args?: readonly string[] } | undefined,
  member: SpawnedMemberInfo,
  teamName: string,
  launchArguments: readonly string[] = [],
): { file: string; args: string[] } {
  const file = base?.file ?? process.execPath;
  const leading = [...(base?.args ?? (base === undefined ? [PROCESS_TEAMMATE_ENTRY] : []))];
  const built = claudeCodeTeammateCommand({
    cli: file,
    agentName: member.agentName,
    teamName,
    color: member.color,
    parentSessionId: member.leadSessionId,
    planModeRequired: member.planModeRequired,
    agentType: member.definition.name,
    model: member.model,
    ...(member.mode === undefined ? {} : { permissionMode: member.mode }),
    extraArguments: launchArguments,
  });
  // A .js CLI runs as `node cli.js …`: the leading arguments go after the script.
  return built.file === file
    ? { file, args: [...leading, ...built.args] }
    : { file: built.file, args: [built.args[0]!, ...leading, ...built.args.slice(1)] };
}

/** Spawns a teammate (see the file comment). On a failed start the member is removed again. */
export async function spawnTeammate(options: SpawnTeammateOptions): Promise<SpawnedTeammate> {
  const leadName = options.leadName ?? 'team-lead';
  const choice = await chooseBackend({
    requested: options.backend.requested,
    environment: options.backend.environment,
    backends: options.backend.backends,
  });
  for (const text of choice.notices)
    options.onEvent?.({ type: 'notice', level: 'info', text, at: Date.now() });
  const inProcess = choice.backendType === 'in-process';
  if (inProcess && options.runInProcess === undefined) {
    throw new Error(
      'spawnTeammate: the in-process backend was chosen but no runInProcess was given; pass runInProcess (normally runTeammate) or request a process backend.',
    );
  }
  const connectsBack = !inProcess && options.readiness !== 'external';
  if (connectsBack && options.command === undefined && options.keyring === undefined) {
    throw new Error(
      `spawnTeammate: the ${choice.backendType} member "${options.name}" runs the process teammate, which verifies its lead's control messages with a key made for it; pass keyring (the lead's createLeadKeyring(), whose mailboxOptions() sign the mailbox).`,
    );
  }
  checkModelEnvironment(options.modelEnvironment);
  const planModeRequired = options.planModeRequired ?? false;
  const member = await addMember(options.root, options.teamName, {
    name: options.name,
    agentType: options.definition.name,
    model: options.model,
    prompt: options.prompt,
    planModeRequired,
    cwd: options.cwd,
    backendType: choice.backendType,
    tmuxPaneId: inProcess ? 'in-process' : '',
    ...(options.mode === undefined ? {} : { mode: options.mode }),
    ...(options.worktreePath === undefined ? {} : { worktreePath: options.worktreePath }),
  });
  const config = await readTeam(options.root, options.teamName);
  const info: SpawnedMemberInfo = {
    agentName: member.name,
    agentId: member.agentId,
    color: member.color ?? 'blue',
    model: options.model,
    cwd: options.cwd,
    prompt: options.prompt,
    definition: options.definition,
    planModeRequired,
    ...(options.mode === undefined ? {} : { mode: options.mode }),
    leadSessionId: config.leadSessionId ?? '',
  };
  let handle: MemberHandle;
  let keyMade = false;
  try {
    // The key first: the spawn prompt below is then signed for this member.
    const launchArguments =
      connectsBack && options.keyring !== undefined
        ? options.keyring.createMemberKey(member.name).launchArguments
        : [];
    keyMade = launchArguments.length > 0;
    await options.mailbox.send(member.name, {
      from: leadName,
      text: options.prompt,
      ...(options.description === undefined ? {} : { summary: options.description }),
    });
    handle = await choice.backend.spawn({
      root: options.root,
      teamName: options.teamName,
      agentName: member.name,
      agentId: member.agentId,
      color: info.color,
      cwd: options.cwd,
      ...(inProcess
        ? {}
        : {
            environment: {
              ...options.environment,
              ...options.modelEnvironment,
              MUSTER_HOME: options.root,
              [BACKEND_TYPE_VARIABLE]: choice.backendType,
            },
          }),
      ...(options.readiness === undefined ? {} : { readiness: options.readiness }),
      ...(options.readyTimeoutMs === undefined ? {} : { readyTimeoutMs: options.readyTimeoutMs }),
      ...(inProcess
        ? { run: (context: InProcessMemberContext) => options.runInProcess!(context, info) }
        : {
            command: teammateCommand(options.command, info, options.teamName, launchArguments),
          }),
    });
  } catch (error) {
    if (keyMade) options.keyring?.forgetMember(member.name);
    await removeMember(options.root, options.teamName, member.agentId).catch(() => undefined);
    throw error;
  }
  const paneId = handle.describe().paneId;
  if (!inProcess && paneId !== undefined) {
    await updateTeamConfig(options.root, options.teamName, (current) => {
      const index = current.members.findIndex((entry) => entry.agentId === member.agentId);
      if (index < 0) return leaveUnchanged;
      current.members[index] = { ...current.members[index]!, tmuxPaneId: paneId };
      return current;
    });
  }
  options.onEvent?.({
    type: 'spawn',
    path: 'teammate',
    agentName: member.name,
    agentType: options.definition.name,
    parentName: leadName,
    backendType: choice.backendType,
    ...(options.worktreePath === undefined ? {} : { worktreePath: options.worktreePath }),
    at: Date.now(),
  });
  void handle.exited.then((exit) =>
    options.onEvent?.({
      type: 'spawn_end',
      path: 'teammate',
      agentName: member.name,
      status:
        exit.reason === 'exited' ? 'completed' : exit.reason === 'killed' ? 'killed' : 'failed',
      message: exit.message,
      at: Date.now(),
    }),
  );
  if (options.monitor !== undefined) void options.monitor.watch(handle).catch(() => undefined);
  const spawned: SpawnedTeammate = {
    member: paneId === undefined || inProcess ? member : { ...member, tmuxPaneId: paneId },
    handle,
    backendType: choice.backendType,
    text: formatSpawnResult(options.dialect ?? '2.1.45', {
      agentId: member.agentId,
      name: member.name,
      teamName: options.teamName,
    }),
    notices: choice.notices,
  };
  options.onSpawned?.(spawned);
  return spawned;
}

/** What {@link teammateSpawnHandler} fixes for every spawn of one lead. */
export type TeammateSpawnBase = Omit<
  SpawnTeammateOptions,
  'name' | 'prompt' | 'description' | 'definition' | 'model' | 'mode' | 'isolation'
> & {
  /** The lead's model (the model chain's last link). */
  parentModel: string;
  /** Makes a worktree for an isolated teammate (`worktreeIsolation()`); cleaned up when it ends. */
  createWorktree?: (agentId: string, cwd: string) => Promise<SpawnWorktree>;
  /** Told of each worktree cleanup once it starts (the runtime's `close()` waits for them). */
  onWorktreeCleanup?: (cleanup: Promise<void>) => void;
};

const MODES: readonly string[] = [
  'acceptEdits',
  'auto',
  'bypassPermissions',
  'default',
  'dontAsk',
  'plan',
  'delegate',
];

/** The spawn tool's `spawnTeammate` for a lead of `base.teamName`: resolves the model, spawns, returns the result text. */
export function teammateSpawnHandler(
  base: TeammateSpawnBase,
): (request: TeammateSpawnRequest) => Promise<ToolResult> {
  return async (request) => {
    if (request.teamName !== base.teamName) {
      return {
        isError: true,
        content: `You lead the team "${base.teamName}", not "${request.teamName}": spawn teammates with team_name "${base.teamName}".`,
      };
    }
    if (request.isolation === 'worktree' && base.createWorktree === undefined) {
      return {
        isError: true,
        content:
          'isolation "worktree" is not available for teammates here: this session creates no worktrees. Leave isolation out.',
      };
    }
    if (request.mode !== undefined && !MODES.includes(request.mode)) {
      return { isError: true, content: `Unknown mode "${request.mode}".` };
    }
    const { model } = resolveAgentModel({
      environment: base.backend.environment,
      ...(request.model === undefined ? {} : { toolModel: request.model }),
      definition: request.definition,
      parentModel: base.parentModel,
    });
    const { parentModel: _parentModel, createWorktree, onWorktreeCleanup, ...rest } = base;
    const worktree =
      request.isolation === 'worktree' && createWorktree !== undefined
        ? await createWorktree(`teammate-${request.name}-${Date.now().toString(36)}`, base.cwd)
        : undefined;
    let spawned: SpawnedTeammate;
    try {
      spawned = await spawnTeammate({
        ...rest,
        ...(worktree === undefined ? {} : { cwd: worktree.path, worktreePath: worktree.path }),
        name: request.name,
        prompt: request.prompt,
        description: request.description,
        definition: request.definition,
        model,
        ...(request.mode === undefined || request.mode === 'delegate' || request.mode === 'auto'
          ? {}
          : { mode: request.mode as PermissionMode }),
      });
    } catch (error) {
      await worktree?.cleanup();
      throw error;
    }
    if (worktree !== undefined) {
      const name = spawned.member.name;
      base.onEvent?.({
        type: 'notice',
        level: 'info',
        text: `${name} works in a git worktree of its own: ${worktree.path} (removed when ${name} ends, unless it holds work that is not on another branch).`,
        agentName: name,
        at: Date.now(),
      });
      const cleanup = spawned.handle.exited
        .then(() => worktree.cleanup())
        .then((kept) => {
          base.onEvent?.({
            type: 'notice',
            level: kept === undefined ? 'info' : 'warning',
            text:
              kept ??
              `${name} ended; its worktree ${worktree.path} held nothing new and was removed.`,
            agentName: name,
            at: Date.now(),
          });
        });
      onWorktreeCleanup?.(cleanup);
    }
    return {
      content: spawned.text,
      data: {
        agentId: spawned.member.agentId,
        name: spawned.member.name,
        backendType: spawned.backendType,
      },
    };
  };
}
