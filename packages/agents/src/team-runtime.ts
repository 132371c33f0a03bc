// The lead's team session: one lead agent on the real loop with the built-in, team, task and
// spawn tools; its team (from TeamCreate) with a signing mailbox, a permission broker and a
// watch on its inbox; teammates spawned through the backends; one event stream; asks answered
// by a person or a headless policy; turns driven by the person's prompts and by whatever the
// teammates write to the lead.
import { randomUUID } from 'node:crypto';
import { homedir } from 'node:os';
import { join } from 'node:path';
import {
  createInProcessBackend,
  createITermBackend,
  createPtyBackend,
  createTmuxBackend,
  type Backend,
  type InProcessMemberContext,
} from '@muster/backends';
import {
  createLeadKeyring,
  createPermissionContext,
  type PermissionContext,
} from '@muster/permissions';
import { TEAM_LEAD_NAME, type PermissionMode } from '@muster/protocol';
import {
  createAgent,
  createPermissionAuthorizer,
  resolveModelName,
  rootsFromPermissionContext,
  type AnyTool,
} from '@muster/query';
import { createBuiltInTools, createTeamSession, createTeamTools } from '@muster/tools';
import { loadAgentDefinitions } from './agent-definitions.js';
import { createBackgroundAgents } from './background-agent.js';
import { createNotificationQueue } from './background-agent-notifications.js';
import { loadHooks } from './hooks.js';
import { createSpawnTool } from './spawn-tool.js';
import { pendingWork, worktreeIsolation } from './spawn-tool-worktree.js';
import { buildSystemPrompt } from './system-prompt.js';
import { LEAD_SYSTEM_PROMPT } from './system-prompt-defaults.js';
import { createTaskOutputTool } from './task-output.js';
import { createTaskStopTool } from './task-stop.js';
import { teammateSpawnHandler } from './teammate-spawn.js';
import { pickModelEnvironment } from './teammate-spawn-environment.js';
import type { TeamEvent, TeamEventSink } from './team-event.js';
import { createAskDesk, leadAskHandler } from './team-runtime-asks.js';
import { runInProcessTeammate } from './team-runtime-members.js';
import { createTeamLedger } from './team-runtime-ledger.js';
import { createProcessStateWatch } from './team-runtime-member-states.js';
import { describeOpenWork, runHeadless } from './team-runtime-run.js';
import { memberStatus, runtimeStatus } from './team-runtime-status.js';
import { createTaskWatch } from './team-runtime-tasks.js';
import { endsWithin, openLeadTeam, type LeadTeam } from './team-runtime-team.js';
import { createLeadTurns } from './team-runtime-turns.js';
import {
  checkTeamRuntimeOptions,
  TeamRuntimeError,
  type ShutdownReport,
  type TeamRuntime,
  type TeamRuntimeOptions,
} from './team-runtime-options.js';

const DEFAULT_SHUTDOWN_DEADLINE_MS = 10_000;

/**
 * Starts a lead's team session in `options.cwd`. Nothing runs until the first `prompt()` or
 * `run()`; `close()` (or `shutdown()` then `close()`) ends everything it started.
 */
export async function createTeamRuntime(options: TeamRuntimeOptions): Promise<TeamRuntime> {
  checkTeamRuntimeOptions(options);
  const { cwd, root } = options;
  const environment = options.environment ?? process.env;
  const home = options.homeDirectory ?? homedir();
  const model = resolveModelName(options.model, { environment });
  const mode = options.permissionMode ?? 'default';
  const date = options.date ?? new Date().toISOString().slice(0, 10);
  const sessionId = randomUUID();
  const sinks = new Set<TeamEventSink>();
  const ledger = createTeamLedger({ silentAgent: TEAM_LEAD_NAME });
  ledger.setModel(TEAM_LEAD_NAME, model);
  // Idle until started at the end; its `emit` is the one defined next.
  const tasks = createTaskWatch({
    root,
    listName: () => session.teamName(),
    emit: (event) => emit(event),
    intervalMs: options.taskPollMs ?? 1_000,
  });
  const processStates = createProcessStateWatch({
    root,
    teamName: () => team?.teamName,
    members: () => team?.members() ?? [],
    emit: (event) => emit(event),
    intervalMs: options.taskPollMs ?? 1_000,
  });
  const emit = (event: TeamEvent) => {
    const usage = ledger.observe(event);
    tasks.observe(event);
    processStates.observe(event);
    for (const sink of [options.onEvent, ...sinks]) {
      try {
        sink?.(event);
      } catch {
        // A sink that throws must not stop the team (TeamEventSink's contract).
      }
    }
    if (usage !== undefined) emit(usage);
  };
  // A backend's notes (how in-process members share the lead's process, …) are said once per
  // session, not again at every spawn.
  const backendNotes = new Set<string>();
  const emitBackendNoticeOnce = (event: TeamEvent) => {
    if (event.type === 'notice' && event.level === 'info' && event.agentName === undefined) {
      if (backendNotes.has(event.text)) return;
      backendNotes.add(event.text);
    }
    emit(event);
  };
  const notice = (level: 'info' | 'warning' | 'error', text: string) =>
    emit({ type: 'notice', level, text, at: Date.now() });

  const { definitions, problems } = await loadAgentDefinitions({ cwd, home });
  for (const problem of problems) notice('warning', `${problem.path}: ${problem.message}`);
  const hooks = await loadHooks({ cwd, home });
  for (const problem of hooks.problems) notice('warning', `${problem.path}: ${problem.message}`);

  const keyring = createLeadKeyring();
  const backends: readonly Backend[] = options.backends ?? [
    createInProcessBackend(),
    createPtyBackend({ environment }),
    createTmuxBackend({ environment: { ...environment } }),
    createITermBackend({ environment: { ...environment } }),
  ];
  const modelEnvironment = options.modelEnvironment ?? pickModelEnvironment(environment);
  const modeFor = (request: { name: string; definition: { name: string } }) =>
    typeof options.teammateMode === 'function'
      ? options.teammateMode({ name: request.name, agentType: request.definition.name })
      : (options.teammateMode ?? 'in-process');
  const asks = createAskDesk({ policy: options.askPolicy ?? 'person', emit });
  const session = createTeamSession({ role: 'lead', taskListName: sessionId });
  let ownContext: PermissionContext = createPermissionContext({
    mode,
    ...(options.permissionRules === undefined ? {} : { rules: options.permissionRules }),
    workingDirectories: [cwd],
    homeDirectory: home,
  });
  let team: LeadTeam | undefined;
  const leadContext = () => team?.broker.leadContext() ?? ownContext;
  let closed = false;

  const askPerson = leadAskHandler(asks, (toolName) => {
    ownContext = {
      ...ownContext,
      rules: { ...ownContext.rules, allow: [...ownContext.rules.allow, { toolName }] },
    };
  });
  // A spawned agent is decided in the lead's context with its own mode (the spawn tool has
  // already clamped it to never be wider than the lead's): an Explore subagent stays in plan.
  const authorizerFor = (agentMode?: PermissionMode) =>
    createPermissionAuthorizer({
      context:
        agentMode === undefined ? leadContext : () => ({ ...leadContext(), mode: agentMode }),
      ask: askPerson,
    });

  const notifications = createNotificationQueue();
  const background = createBackgroundAgents({
    sessionDirectory: join(root, 'sessions', sessionId),
    parentName: TEAM_LEAD_NAME,
    notifications,
    onEvent: emit,
  });
  const teamTools = createTeamTools({
    root,
    session,
    openMailbox: (teamName) => {
      if (team?.teamName === teamName) return team.mailbox;
      throw new TeamRuntimeError({
        code: 'NOT_IN_TEAM',
        message: `The lead is not in team ${teamName}.`,
      });
    },
    planReview: {
      approvePlan: (requestId, approval) => requireTeam().broker.approvePlan(requestId, approval),
      rejectPlan: (requestId, feedback) => requireTeam().broker.rejectPlan(requestId, feedback),
      pendingPlans: () => team?.broker.pendingPlans() ?? [],
    },
    isMemberAlive: (member) => {
      const known = team?.members().find((entry) => entry.agentId === member.agentId);
      return known === undefined ? undefined : known.handle.isAlive();
    },
    leadModel: model,
    leadSessionId: sessionId,
  });
  const requireTeam = (): LeadTeam => {
    if (team === undefined) {
      throw new TeamRuntimeError({
        code: 'NOT_IN_TEAM',
        message: 'The lead has no team yet: it creates one with TeamCreate.',
      });
    }
    return team;
  };

  const createWorktree = worktreeIsolation();
  const worktreeCleanups = pendingWork();
  const generalTools: AnyTool[] = [...(options.tools ?? createBuiltInTools())];
  let leadTools: AnyTool[] = [];
  const spawnTool = createSpawnTool({
    dialect: options.dialect ?? '2.1.45',
    definitions: [...definitions.values()],
    client: options.client,
    parentModel: model,
    parentName: TEAM_LEAD_NAME,
    tools: () => leadTools,
    authorizerFor,
    environment,
    hooks,
    onEvent: emit,
    background,
    teamName: () => session.teamName(),
    parentMode: mode,
    createWorktree,
    date,
    spawnTeammate: async (request) => {
      const current = requireTeam();
      const requested = modeFor(request);
      const handler = teammateSpawnHandler({
        root,
        teamName: current.teamName,
        cwd,
        mailbox: current.mailbox,
        parentModel: model,
        backend: { requested, backends, environment },
        keyring,
        modelEnvironment,
        ...(options.teammateCommand === undefined ? {} : { command: options.teammateCommand }),
        onEvent: emitBackendNoticeOnce,
        createWorktree,
        onWorktreeCleanup: worktreeCleanups.add,
        dialect: options.dialect ?? '2.1.45',
        runInProcess: (context: InProcessMemberContext, member) => {
          ledger.setModel(member.agentName, member.model);
          return runInProcessTeammate({
            context,
            member,
            root,
            teamName: current.teamName,
            client: options.teammateClient ?? options.client,
            definitions,
            keyring,
            environment,
            home,
            date,
            leadRules: options.permissionRules,
            emit,
          });
        },
        onSpawned: (spawned) => {
          const { member } = spawned;
          if (member.model !== undefined) ledger.setModel(member.name, member.model);
          current.adopt({
            name: member.name,
            agentId: member.agentId,
            backendType: spawned.backendType,
            handle: spawned.handle,
            ...(member.color === undefined ? {} : { color: member.color }),
            agentType: member.agentType,
            ...(member.model === undefined ? {} : { model: member.model }),
          });
        },
      });
      return handler(request);
    },
  });
  leadTools = [
    ...generalTools,
    spawnTool,
    createTaskOutputTool(background),
    createTaskStopTool(background),
    ...teamTools.all,
  ];
  const system = buildSystemPrompt({
    ...(options.systemPrompt === undefined ? {} : { custom: options.systemPrompt }),
    defaultPrompt: LEAD_SYSTEM_PROMPT,
    ...(options.appendSystemPrompt === undefined ? {} : { append: options.appendSystemPrompt }),
    environment: {
      cwd,
      model,
      toolNames: leadTools.map((tool) => tool.name),
      platform: process.platform,
      date,
    },
  });

  const turns = createLeadTurns({
    emit,
    extraInput: () => notifications.pendingInput(),
    createAgent: (pendingInput) =>
      createAgent({
        client: options.client,
        model,
        identity: { name: TEAM_LEAD_NAME, id: `${TEAM_LEAD_NAME}@${sessionId}` },
        system,
        tools: leadTools,
        cwd,
        roots: () => rootsFromPermissionContext(leadContext()),
        authorize: authorizerFor(),
        environment,
        pendingInput,
        ...(options.maxTurns === undefined ? {} : { maxRequestsPerTurn: options.maxTurns }),
      }),
  });
  notifications.onPush(() => turns.deliver(notifications.drain().join('\n\n')));

  session.onChange((change) => {
    if (change.kind === 'enter') {
      team = openLeadTeam({
        root,
        teamName: change.teamName,
        keyring,
        leadContext: ownContext,
        asks,
        planApproval: options.planApproval ?? 'model',
        emit,
        deliver: (text, onTaken) => turns.deliver(text, onTaken),
        memberExitDeadlineMs: options.memberExitDeadlineMs ?? 5_000,
        onProcessMemberIdle: (name, notification) => {
          processStates.markIdle(name, Date.parse(notification.timestamp));
          if (notification.tokenUsage === undefined) return;
          const usage = ledger.reportTotal(name, notification.tokenUsage);
          if (usage !== undefined) emit(usage);
        },
      });
    } else if (team?.teamName === change.teamName) {
      const leaving = team;
      ownContext = leaving.broker.leadContext();
      team = undefined;
      void leaving.stop();
    }
  });

  const shutdown = async (
    shutdownOptions: { deadlineMs?: number; reason?: string } = {},
  ): Promise<ShutdownReport> => {
    const report: ShutdownReport = { approved: [], killed: [] };
    const current = team;
    if (current === undefined) return report;
    const live = current.liveMembers();
    const deadlineMs = shutdownOptions.deadlineMs ?? DEFAULT_SHUTDOWN_DEADLINE_MS;
    await Promise.allSettled(
      live.map(async (member) => {
        if (member.shutdownApproved !== true) {
          await current.requestShutdown(member, shutdownOptions.reason ?? 'The session is ending.');
        }
        const ended = await endsWithin(member.handle, deadlineMs);
        // A member that approved and ended at once may be over before the lead's inbox watch
        // took its shutdown_approved: the inbox file says so.
        const approved =
          member.shutdownApproved === true ||
          (ended && (await current.wroteShutdownApproved(member).catch(() => false)));
        if (ended && approved) {
          report.approved.push(member.name);
        } else {
          await member.handle.kill({ graceful: !ended, deadlineMs: 1_000 });
          report.killed.push(member.name);
        }
      }),
    );
    return report;
  };

  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    turns.close();
    tasks.close();
    processStates.close();
    const current = team;
    await Promise.allSettled([
      ...(current?.members() ?? []).map((member) => member.handle.kill({ graceful: false })),
    ]);
    await Promise.allSettled([
      turns.closeAgent(),
      background.close(),
      current?.stop(),
      ...backends.map((backend) => backend.close()),
    ]);
    // A teammate's worktree half removed when the process exits would be left locked.
    await worktreeCleanups.settled();
  };

  // Everything their callbacks read (`session`, `team`) exists from here on.
  tasks.start();
  processStates.start();
  const runtime: TeamRuntime = {
    leadName: TEAM_LEAD_NAME,
    teamName: () => session.teamName(),
    subscribe(sink) {
      sinks.add(sink);
      return () => sinks.delete(sink);
    },
    prompt(text) {
      if (closed) {
        return Promise.reject(
          new TeamRuntimeError({ code: 'CLOSED', message: 'The team session is closed.' }),
        );
      }
      if (typeof text !== 'string' || text.trim() === '') {
        return Promise.reject(
          new TeamRuntimeError({
            code: 'INVALID_OPTIONS',
            message: 'prompt: give the lead a non-empty message.',
          }),
        );
      }
      return turns.prompt(text);
    },
    interrupt: () => turns.interrupt(),
    pendingAsks: () => asks.pending(),
    answer: (askId, answer) => asks.answer(askId, answer),
    async messageTeammate(name, text, summary) {
      const current = requireTeam();
      await current.mailbox.send(name, {
        from: TEAM_LEAD_NAME,
        text,
        ...(summary === undefined ? {} : { summary }),
      });
      emit({
        type: 'message',
        from: TEAM_LEAD_NAME,
        to: name,
        text,
        ...(summary === undefined ? {} : { summary }),
        at: Date.now(),
      });
    },
    members: () => (team?.members() ?? []).map((member) => memberStatus(member, ledger, tasks)),
    tasks: () => tasks.read(),
    status: () =>
      runtimeStatus({
        model,
        permissionMode: leadContext().mode,
        teamName: session.teamName(),
        leadName: TEAM_LEAD_NAME,
        leadUsage: turns.usage(),
        ledger,
        members: team?.members() ?? [],
      }),
    leadUsage: () => turns.usage(),
    run: (prompt, runOptions = {}) =>
      runHeadless({
        prompt,
        ...runOptions,
        turns,
        team: () => team,
        shutdown,
        notice,
        openWork: async () => describeOpenWork(await tasks.read(), runtime.members()),
      }),
    shutdown,
    close,
  };
  return runtime;
}
