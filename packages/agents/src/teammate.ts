// The loop one teammate runs (seed 003 "The Idle Loop", seed 001 lifecycle): a turn per batch
// of unread messages in priority order, an idle notification to the lead after each, waiting
// on the inbox in between, answering shutdown requests and plan answers the lead verifiably
// sent, escalating permission asks to the lead, until it approves a shutdown or its lifecycle
// signal aborts. Used by the in-process backend (`spec.run`) and by `muster teammate` in a pane.
import { mkdir } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { createMailbox } from '@muster/mailbox';
import {
  createAuditLog,
  createMailboxMessenger,
  createPermissionClient,
  createPermissionContext,
  createPlanGate,
  createShutdownGate,
  type MessageHandler,
  type PlanGate,
} from '@muster/permissions';
import { TEAM_LEAD_NAME } from '@muster/protocol';
import {
  createAgent,
  createPermissionAuthorizer,
  rootsFromPermissionContext,
  type AgentOptions,
  type AnyTool,
  type PermissionAskHandler,
} from '@muster/query';
import { createTaskStore } from '@muster/tasks';
import { createTeamSession, createTeamTools } from '@muster/tools';
import {
  formatClaimedTask,
  formatPlanAnswer,
  formatShutdownRequest,
  formatSpawnPrompt,
  joinDeliveries,
  type PendingDelivery,
} from './inbox-delivery.js';
import { createMemberStateRecorder } from './member-state.js';
import { createExitPlanModeTool } from './plan-mode.js';
import { openTeammateInbox } from './teammate-inbox.js';
import {
  checkTeammateOptions,
  TeammateError,
  type TeammateExit,
  type TeammateOptions,
} from './teammate-options.js';
import { MAXIMUM_STOP_HOOK_CONTINUATIONS } from './subagent.js';
import { abortedPromise, buildTrust, LOOP_TOOL_NAMES } from './teammate-support.js';
import { buildIdleNotification, createTurnFactsCollector } from './teammate-turn.js';
import type { TeamEvent } from './team-event.js';

/**
 * Runs one teammate until it approves a shutdown request (`shutdown`), its lifecycle signal
 * aborts (`aborted`) or something it cannot go on after fails (`failed`). Never throws for a
 * failure inside the loop; throws `TeammateError('INVALID_OPTIONS')` for bad options.
 */
export async function runTeammate(options: TeammateOptions): Promise<TeammateExit> {
  checkTeammateOptions(options);
  const clash = options.tools.find((tool) => LOOP_TOOL_NAMES.has(tool?.name));
  if (clash !== undefined) {
    throw new TeammateError({
      code: 'INVALID_OPTIONS',
      message: `runTeammate: tools must not contain ${clash.name}: the loop adds the team tools (${[...LOOP_TOOL_NAMES].join(', ')}) itself. Remove it from the pooled tools.`,
    });
  }
  const { root, teamName, agentName, signal } = options;
  const agentId = options.agentId ?? `${agentName}@${teamName}`;
  const emit = (event: TeamEvent) => options.onEvent?.(event);
  const states = createMemberStateRecorder({
    root,
    teamName,
    agentName,
    ...(options.backendType === undefined ? {} : { backendType: options.backendType }),
    ...(options.onEvent === undefined ? {} : { onEvent: options.onEvent }),
  });
  states.set('starting');

  const audit = createAuditLog({ root, team: teamName });
  const trust = buildTrust(options, audit);
  const mailbox = createMailbox({ root, team: teamName });
  const dialect = (await mailbox.speech()).dialect;
  const planMode = options.planModeRequired === true || options.permissionMode === 'plan';
  const planFilePath = planMode
    ? (options.planFilePath ?? join(root, 'plans', `${teamName}-${agentName}.md`))
    : undefined;
  if (planFilePath !== undefined) await mkdir(dirname(planFilePath), { recursive: true });
  const permissionClient = createPermissionClient({
    messenger: createMailboxMessenger({ mailbox, agentName }),
    teamName,
    trust,
    audit,
    context: createPermissionContext({
      mode: planMode ? 'plan' : (options.permissionMode ?? 'default'),
      ...(options.permissionRules === undefined ? {} : { rules: options.permissionRules }),
      workingDirectories: [options.cwd],
      homeDirectory: options.homeDirectory ?? homedir(),
      ...(planFilePath === undefined ? {} : { planFilePath }),
    }),
    ...(options.permissionTimeoutMs === undefined
      ? {}
      : { timeoutMs: options.permissionTimeoutMs }),
  });
  const planGate: PlanGate | undefined = planMode
    ? createPlanGate({ client: permissionClient })
    : undefined;

  let shutdownApproved: string | undefined;
  let currentTask: { id: string; subject?: string } | undefined;
  const shutdownGate = createShutdownGate({
    trust,
    onRequest: (request, message) => {
      inbox.push(0, formatShutdownRequest(message, request));
    },
  });
  const controlHandlers: MessageHandler[] = [
    (message, delivery) => permissionClient.handleMessage(message, delivery),
    (message, delivery) => shutdownGate.handleMessage(message, delivery),
  ];
  if (planGate !== undefined) {
    controlHandlers.push((message, delivery) => planGate.handleMessage(message, delivery));
  }

  const teamTools = createTeamTools({
    root,
    session: createTeamSession({ role: 'teammate', agentName, teamName }),
    shutdownGate,
    onShutdownApproved: ({ requestId }) => {
      if (shutdownApproved !== undefined) return;
      shutdownApproved = requestId;
      states.set('stopping', `approved shutdown ${requestId}`);
      inbox.wake();
    },
    ...(options.taskHooks === undefined ? {} : { taskHooks: options.taskHooks }),
    shutdownDetails: {
      ...(options.paneId === undefined ? {} : { paneId: options.paneId }),
      ...(options.backendType === undefined ? {} : { backendType: options.backendType }),
    },
  });
  const extraTools: AnyTool[] = [...teamTools.all];
  if (planGate !== undefined && planFilePath !== undefined) {
    extraTools.push(
      createExitPlanModeTool({
        gate: planGate,
        planFilePath,
        onSubmitted: ({ answer }) => {
          answer.then(
            (result) =>
              inbox.push(
                1,
                formatPlanAnswer(
                  result.approved
                    ? { approved: true }
                    : { approved: false, feedback: result.feedback },
                ),
              ),
            (error: unknown) =>
              inbox.push(
                1,
                `[Plan not sent] Your plan could not be sent to the lead: ${(error as Error)?.message ?? String(error)}. Call ExitPlanMode again.`,
              ),
          );
        },
      }),
    );
  }
  const askLead: PermissionAskHandler = async (request, _decision, turnSignal) => {
    const aborted = abortedPromise(turnSignal);
    try {
      // A client that refuses to ask (it is closed once the teammate ends) denies the call.
      const asked = permissionClient
        .requestPermission({
          toolName: request.toolName,
          input: request.input,
          toolUseId: request.toolUseId,
          description: request.description,
        })
        .catch((error: unknown) => ({
          behavior: 'deny' as const,
          message: `The lead could not be asked: ${(error as Error)?.message ?? String(error)}`,
        }));
      const answer = await Promise.race([asked, aborted.promise.then(() => undefined)]);
      if (answer === undefined) {
        return { behavior: 'deny', message: 'The turn was interrupted while the lead was asked.' };
      }
      return answer.behavior === 'allow'
        ? { behavior: 'allow', input: answer.updatedInput }
        : { behavior: 'deny', message: answer.message };
    } finally {
      aborted.dispose();
    }
  };

  // A read mark that failed: the messages were delivered, so the teammate goes on; the next
  // read may show them again, which the person watching should know.
  const reportMarkFailure = (error: unknown): void => {
    emit({
      type: 'notice',
      level: 'error',
      agentName,
      text: `${agentName} could not mark delivered messages read: ${(error as Error)?.message ?? String(error)}`,
      at: Date.now(),
    });
  };

  // Mid-turn delivery: lead messages and shutdown requests (rank 0 and 1) that arrive while a
  // turn runs reach the model at its next tool-result boundary.
  const pendingInput: AgentOptions['pendingInput'] = () => {
    const urgent = inbox.take(1);
    if (urgent.length === 0) return undefined;
    for (const item of urgent) item.onDelivered?.();
    void inbox.markDelivered().catch(reportMarkFailure);
    return [{ type: 'text', text: joinDeliveries(urgent) }];
  };
  const agentOptions: AgentOptions = {
    client: options.client,
    model: options.model,
    identity: { name: agentName, id: agentId, teamName },
    system: options.systemPrompt,
    tools: [...options.tools, ...extraTools],
    cwd: options.cwd,
    roots: () => rootsFromPermissionContext(permissionClient.context()),
    authorize: createPermissionAuthorizer({
      context: () => permissionClient.context(),
      ask: askLead,
      audit: { sink: audit, actor: agentName },
    }),
    signal,
    ...(options.environment === undefined ? {} : { environment: options.environment }),
    ...(options.transcriptPath === undefined ? {} : { transcriptPath: options.transcriptPath }),
    ...(options.compaction === undefined
      ? {}
      : {
          compaction: {
            thresholdTokens: options.compaction.thresholdTokens,
            preservedContext: () =>
              [
                `You are ${agentName} (${agentId}), a teammate in team "${teamName}". Your lead is ${TEAM_LEAD_NAME}; reach it and your peers with SendMessage.`,
                currentTask === undefined
                  ? 'You hold no task right now; look at TaskList for open work.'
                  : `Your current task is #${currentTask.id}${currentTask.subject === undefined ? '' : `: ${currentTask.subject}`}.`,
              ].join('\n'),
          },
        }),
    pendingInput,
  };
  const store = createTaskStore({ root, team: teamName });
  const agent = createAgent(agentOptions);
  // Opened last: nothing above may throw and leave its watch behind.
  const inbox = openTeammateInbox({
    mailbox,
    agentName,
    trust,
    controlHandlers,
    verifyLeadText: dialect === 'v2',
  });

  const claimTask = async (): Promise<PendingDelivery | undefined> => {
    try {
      const claim = await store.claimNextAvailable(agentName, { checkAgentBusy: true });
      if (!claim.success) return undefined;
      currentTask = { id: claim.task.id, subject: claim.task.subject };
      return { rank: 3, order: -1, text: formatClaimedTask(claim.task) };
    } catch (error) {
      emit({
        type: 'notice',
        level: 'warning',
        agentName,
        text: `${agentName} could not look for an unclaimed task in team "${teamName}": ${(error as Error)?.message ?? String(error)}. It waits for messages instead.`,
        at: Date.now(),
      });
      return undefined;
    }
  };

  /** Runs the TeammateIdle hooks; the feedback of a hook that blocked, else undefined. */
  const teammateIdleFeedback = async (): Promise<string | undefined> => {
    const hooks = options.hooks;
    if (hooks === undefined || !hooks.has('TeammateIdle')) return undefined;
    const outcome = await hooks.runHook(
      'TeammateIdle',
      { teammate_name: agentName, team_name: teamName, cwd: options.cwd },
      {
        signal,
        cwd: options.cwd,
        ...(options.environment === undefined ? {} : { environment: options.environment }),
      },
    );
    for (const notice of outcome.notices) {
      emit({ type: 'notice', level: 'warning', agentName, text: notice, at: Date.now() });
    }
    if (!outcome.blocked || signal.aborted) return undefined;
    const message = outcome.message?.trim();
    return message === undefined || message === ''
      ? 'A TeammateIdle hook asked you to keep working (it gave no reason). Check your task before you stop.'
      : message;
  };

  const lifecycle = abortedPromise(signal);
  void lifecycle.promise.then(() => inbox.wake());
  let turns = 0;
  let idleHookContinuations = 0;
  const shutdownExit = (requestId: string): TeammateExit => ({
    reason: 'shutdown',
    message: `${agentName} approved shutdown request ${requestId} and ended.`,
    turns,
    shutdownRequestId: requestId,
  });
  let claimDue = options.claimTasks !== false && options.prompt === undefined;
  let exit: TeammateExit | undefined;
  if (options.prompt !== undefined) {
    inbox.push(1, formatSpawnPrompt(options.prompt, options.description));
  }
  try {
    // A muster teammate reads its inbox through the mailbox package: claiming it lets old
    // read entries move to the archive, so the inbox it re-reads on every change stays short.
    await mailbox.claimInbox(agentName);
    // What already waits in the inbox (the spawn prompt above all) comes before any task taken
    // from the list: the watch may not have delivered it yet when the loop first looks.
    if (claimDue && (await mailbox.readUnread(agentName)).length > 0) claimDue = false;
    options.onReady?.();
    while (exit === undefined) {
      let batch: PendingDelivery[] = [];
      while (batch.length === 0) {
        const failure = inbox.failure();
        if (failure !== undefined) throw failure.error;
        if (signal.aborted || shutdownApproved !== undefined) break;
        batch = inbox.take();
        if (batch.length > 0) break;
        if (claimDue && planGate?.status() !== 'awaiting_approval') {
          claimDue = false;
          const claimed = await claimTask();
          if (claimed !== undefined) batch = [claimed];
          continue;
        }
        await inbox.waitForDelivery();
        // Entries of the same inbox change arrive one by one from the watch, all within the
        // current tick: let them all in, so that they become one turn.
        await new Promise((resolve) => setImmediate(resolve));
      }
      if (shutdownApproved !== undefined) {
        exit = shutdownExit(shutdownApproved);
        break;
      }
      if (signal.aborted) {
        exit = {
          reason: 'aborted',
          message: `${agentName} stopped: its lifecycle signal was aborted (${String(signal.reason ?? 'no reason given')}).`,
          turns,
        };
        break;
      }
      turns += 1;
      const collector = createTurnFactsCollector(agentName, TEAM_LEAD_NAME);
      const turn = agent.send(joinDeliveries(batch));
      // The read marks and the sidecar write wait until the model answers: parsing and
      // locking files would otherwise delay the request that the message woke.
      const started = turn.responseStarted.then(
        () => undefined,
        () => undefined,
      );
      states.holdWritesUntil(started);
      states.set('working');
      for (const item of batch) item.onDelivered?.();
      const marked = started.then(() => inbox.markDelivered()).catch(reportMarkFailure);
      for await (const event of turn) {
        collector.observe(event);
        emit({ type: 'agent', agentName, event, at: Date.now() });
      }
      const result = await turn.result;
      await marked;
      // The SendMessage hook may run after the turn ended: the call's success is what counts.
      const approval = collector.facts.approvedShutdownRequestId;
      if (approval !== undefined && shutdownApproved === undefined) {
        shutdownApproved = approval;
        states.set('stopping', `approved shutdown ${approval}`);
      }
      if (collector.facts.currentTaskId !== undefined) {
        currentTask = { id: collector.facts.currentTaskId };
      }
      if (collector.facts.completedTaskId === currentTask?.id) currentTask = undefined;
      if (shutdownApproved !== undefined) {
        exit = shutdownExit(shutdownApproved);
        break;
      }
      if (signal.aborted) continue;
      const feedback = await teammateIdleFeedback();
      if (feedback !== undefined && idleHookContinuations < MAXIMUM_STOP_HOOK_CONTINUATIONS) {
        idleHookContinuations += 1;
        inbox.push(1, feedback);
        continue;
      }
      if (feedback !== undefined) {
        emit({
          type: 'notice',
          level: 'warning',
          agentName,
          text: `A TeammateIdle hook blocked ${agentName} ${MAXIMUM_STOP_HOOK_CONTINUATIONS + 1} times in a row; it goes idle anyway (the hook said: ${feedback})`,
          at: Date.now(),
        });
      }
      idleHookContinuations = 0;
      const notification = buildIdleNotification({
        agentName,
        result,
        facts: collector.facts,
        dialect,
        // A lead sees an in-process teammate's requests itself; one in a process hears of its
        // usage only this way.
        ...(options.backendType === 'in-process' ? {} : { tokenUsage: agent.usage() }),
      });
      await mailbox.sendProtocolMessage(TEAM_LEAD_NAME, agentName, notification);
      emit({
        type: 'message',
        from: agentName,
        to: TEAM_LEAD_NAME,
        text: JSON.stringify(notification),
        protocolType: 'idle_notification',
        at: Date.now(),
      });
      claimDue = options.claimTasks !== false;
      states.set(planGate?.status() === 'awaiting_approval' ? 'awaiting_plan_approval' : 'idle');
    }
  } catch (error) {
    exit = {
      reason: 'failed',
      message: `${agentName} stopped after an error: ${(error as Error)?.message ?? String(error)}`,
      turns,
      error,
    };
  } finally {
    lifecycle.dispose();
    await inbox.stop();
    permissionClient.close();
    await agent.close(exit?.reason ?? 'ended');
    states.set('gone', exit?.message);
    await states.flush();
  }
  return exit ?? { reason: 'aborted', message: `${agentName} stopped.`, turns };
}
