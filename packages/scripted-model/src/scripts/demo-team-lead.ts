/**
 * The demo lead's decisions, each from the request alone: create the team, three tasks (two
 * blocked by the first), spawn alice and bob (bob in plan mode), reject bob's first plan and
 * approve the revision, check the task list when a teammate reports, ask everyone to shut
 * down when all tasks are completed, and delete the team once every shutdown is approved.
 */
import { reply, text } from '../script-helpers.js';
import {
  allTeammateMessages,
  allToolResults,
  teammateMessages,
  toolCalls,
  toolResults,
  workingDirectoryOf,
  type ToolResult,
} from '../script-helpers-tellers.js';
import type { Reply, ReplyBlock, ScriptRequest } from '../types.js';
import {
  DEMO_IMPLEMENTER,
  DEMO_TASKS,
  DEMO_TEAM_NAME,
  DEMO_TESTER,
  PLAN_FEEDBACK,
  implementerPrompt,
  testerPrompt,
} from './demo-team-content.js';

const TEAMMATES = [DEMO_IMPLEMENTER, DEMO_TESTER] as const;

function toolBlock(name: string, input: Record<string, unknown>): ReplyBlock {
  return { type: 'tool_use', name, input };
}

/** The ids of the demo tasks, read from the TaskCreate results in the conversation. */
export function demoTaskIds(
  request: ScriptRequest,
): Record<(typeof DEMO_TASKS)[number]['key'], string> | undefined {
  const ids: Partial<Record<string, string>> = {};
  for (const result of allToolResults(request)) {
    if (result.toolName !== 'TaskCreate' || result.isError) continue;
    const task = DEMO_TASKS.find((candidate) => candidate.subject === result.input.subject);
    const id = /#(\d+)/.exec(result.content)?.[1];
    if (task !== undefined && id !== undefined) ids[task.key] = id;
  }
  const { implement, tests, docs } = ids;
  return implement && tests && docs ? { implement, tests, docs } : undefined;
}

/** The team name Claude Code answered TeamCreate with (it may sanitize it), else the requested one. */
function teamNameOf(request: ScriptRequest): string {
  const result = allToolResults(request).find(
    (candidate) => candidate.toolName === 'TeamCreate' && !candidate.isError,
  );
  if (result !== undefined) {
    try {
      const parsed = JSON.parse(result.content) as { team_name?: unknown };
      if (typeof parsed.team_name === 'string' && parsed.team_name !== '') return parsed.team_name;
    } catch {
      // Not JSON (another runtime's wording): keep the name the lead asked for.
    }
  }
  return DEMO_TEAM_NAME;
}

function createTasks(): Reply {
  return reply({
    content: [
      'Team ready. I will split the job into three tasks: the implementation first, then tests and docs.',
      ...DEMO_TASKS.map((task) =>
        toolBlock('TaskCreate', {
          subject: task.subject,
          description: task.description,
          activeForm: task.activeForm,
        }),
      ),
    ],
  });
}

function addDependencies(request: ScriptRequest): Reply {
  const ids = demoTaskIds(request);
  if (ids === undefined)
    return text(
      'demo-team lead: I could not read the three task ids from the TaskCreate results, so I stop here.',
    );
  return reply({
    content: [
      `Tests (#${ids.tests}) and docs (#${ids.docs}) wait for the implementation (#${ids.implement}).`,
      toolBlock('TaskUpdate', { taskId: ids.tests, addBlockedBy: [ids.implement] }),
      toolBlock('TaskUpdate', { taskId: ids.docs, addBlockedBy: [ids.implement] }),
    ],
  });
}

function spawnTeammates(request: ScriptRequest): Reply {
  const ids = demoTaskIds(request);
  if (ids === undefined)
    return text('demo-team lead: I lost track of the task ids, so I cannot brief the teammates.');
  const team = teamNameOf(request);
  const directory = workingDirectoryOf(request);
  return reply({
    content: [
      `Spawning ${DEMO_IMPLEMENTER} for the implementation and ${DEMO_TESTER} (plan mode) for tests and docs.`,
      toolBlock('Task', {
        description: 'Implement slugify',
        prompt: implementerPrompt(ids.implement, directory),
        subagent_type: 'general-purpose',
        name: DEMO_IMPLEMENTER,
        team_name: team,
      }),
      toolBlock('Task', {
        description: 'Test and document slugify',
        prompt: testerPrompt(ids.tests, ids.docs, ids.implement, directory),
        subagent_type: 'general-purpose',
        name: DEMO_TESTER,
        team_name: team,
        mode: 'plan',
      }),
    ],
  });
}

/** Task ids (of ours) that a TaskList result still shows as not completed. */
function openTasks(result: ToolResult, ids: Record<string, string>): string[] {
  const ours = new Set(Object.values(ids));
  const open: string[] = [];
  for (const match of result.content.matchAll(/#(\d+)\s*\[([a-z_]+)\]/g)) {
    if (ours.has(match[1] ?? '') && match[2] !== 'completed') open.push(match[1] ?? '');
  }
  return open;
}

function shutdownRequested(request: ScriptRequest): Set<string> {
  return new Set(
    toolCalls(request)
      .filter((call) => call.name === 'SendMessage' && call.input.type === 'shutdown_request')
      .map((call) => String(call.input.recipient)),
  );
}

function afterTaskList(request: ScriptRequest, result: ToolResult): Reply {
  const ids = demoTaskIds(request);
  if (result.isError || ids === undefined)
    return text(`demo-team lead: TaskList failed (${result.content.slice(0, 200)}); waiting.`);
  const open = openTasks(result, ids);
  if (open.length > 0)
    return text(`Still open: ${open.map((id) => `#${id}`).join(', ')}. Waiting for the team.`);
  const asked = shutdownRequested(request);
  const toAsk = TEAMMATES.filter((name) => !asked.has(name));
  if (toAsk.length === 0) return text('Every task is completed; waiting for the shutdown answers.');
  return reply({
    content: [
      'All three tasks are completed. Asking the team to shut down.',
      ...toAsk.map((name) =>
        toolBlock('SendMessage', {
          type: 'shutdown_request',
          recipient: name,
          content: 'All tasks are completed. Thank you, please shut down.',
        }),
      ),
    ],
  });
}

/** How often the lead tries TeamDelete again while approved teammates are still ending. */
const TEAM_DELETE_ATTEMPTS = 6;

/**
 * TeamDelete refused because a teammate that approved its shutdown is still in the config: a
 * runtime (muster's) removes it only once its run has really ended. Try again after a short
 * pause (the reply streams pings for half a second first), a few times at most.
 */
function retryTeamDelete(request: ScriptRequest): Reply | undefined {
  const attempts = toolCalls(request).filter((call) => call.name === 'TeamDelete').length;
  if (attempts >= TEAM_DELETE_ATTEMPTS) return undefined;
  return reply({
    content: ['A teammate is still ending; trying TeamDelete again.', toolBlock('TeamDelete', {})],
    fault: { kind: 'pings-only', durationMs: 500 },
  });
}

function afterResults(request: ScriptRequest, results: ToolResult[]): Reply {
  const names = new Set(results.map((result) => result.toolName));
  const failed = results.find((result) => result.isError);
  if (failed?.toolName === 'TeamDelete' && /still has teammates/i.test(failed.content)) {
    const retry = retryTeamDelete(request);
    if (retry !== undefined) return retry;
  }
  if (failed !== undefined && !names.has('TaskList')) {
    return text(
      `demo-team lead: ${failed.toolName || 'a tool'} failed: ${failed.content.slice(0, 300)}. I stop here.`,
    );
  }
  if (names.has('TeamCreate')) return createTasks();
  if (names.has('TaskCreate')) return addDependencies(request);
  if (names.has('TaskUpdate')) return spawnTeammates(request);
  if (names.has('Task'))
    return text(`${DEMO_IMPLEMENTER} and ${DEMO_TESTER} are on it. I will wait for their reports.`);
  if (names.has('TaskList'))
    return afterTaskList(
      request,
      results.find((result) => result.toolName === 'TaskList') as ToolResult,
    );
  if (names.has('TeamDelete')) {
    return text(
      'Done: slugify(text) is in src/slugify.js and exported from src/index.js, test/slugify.test.js covers it, and README.md documents it. The team has been shut down and deleted.',
    );
  }
  if (names.has('SendMessage')) {
    const kinds = new Set(results.map((result) => result.input.type));
    if (kinds.has('shutdown_request'))
      return text('Shutdown requested; waiting for both teammates to approve.');
    return text('Answered. Waiting for the team.');
  }
  return text(
    `demo-team lead: I did not expect results from ${[...names].join(', ') || 'an unknown tool'}; waiting.`,
  );
}

function answerPlan(request: ScriptRequest, from: string, requestId: string): ReplyBlock {
  const rejectedBefore = toolCalls(request).some(
    (call) =>
      call.name === 'SendMessage' &&
      call.input.type === 'plan_approval_response' &&
      call.input.recipient === from &&
      call.input.approve === false,
  );
  return rejectedBefore
    ? toolBlock('SendMessage', {
        type: 'plan_approval_response',
        request_id: requestId,
        recipient: from,
        approve: true,
      })
    : toolBlock('SendMessage', {
        type: 'plan_approval_response',
        request_id: requestId,
        recipient: from,
        approve: false,
        content: PLAN_FEEDBACK,
      });
}

/** What the teammate messages of the last user message ask the lead to do. */
interface MessageActions {
  notes: string[];
  blocks: ReplyBlock[];
}

/**
 * The lead's actions for the teammate messages of the last user message: answer a plan, ask
 * again after a rejected shutdown, check the task list on a report, delete the team once both
 * approved their shutdown (that alone). `planned` are the tool calls the reply already makes.
 */
function messageActions(request: ScriptRequest, planned: readonly ReplyBlock[]): MessageActions {
  const plannedCalls = planned.flatMap((block) => (block.type === 'tool_use' ? [block] : []));
  const plannedTools = new Set(plannedCalls.map((call) => call.name));
  const plannedShutdown = plannedCalls.some(
    (call) => (call.input as { type?: unknown }).type === 'shutdown_request',
  );
  const notes: string[] = [];
  const blocks: ReplyBlock[] = [];
  let checkTasks = false;
  for (const message of teammateMessages(request)) {
    const payload = message.payload;
    if (payload === undefined) {
      checkTasks = true;
      continue;
    }
    if (payload.type === 'plan_approval_request' && typeof payload.requestId === 'string') {
      const block = answerPlan(request, message.from, payload.requestId);
      notes.push(
        (block as { input: { approve: boolean } }).input.approve
          ? `Approving ${message.from}'s revised plan.`
          : `${message.from}'s plan needs one more case.`,
      );
      blocks.push(block);
    } else if (payload.type === 'shutdown_rejected') {
      notes.push(`${message.from} is not ready to stop; asking again.`);
      blocks.push(
        toolBlock('SendMessage', {
          type: 'shutdown_request',
          recipient: message.from,
          content: 'Every task is completed; please shut down now.',
        }),
      );
    }
  }
  const approved = new Set(
    allTeammateMessages(request)
      .filter((message) => message.payload?.type === 'shutdown_approved')
      .map((message) => message.from),
  );
  const deleted = toolCalls(request).some((call) => call.name === 'TeamDelete');
  if (
    !deleted &&
    !plannedTools.has('TeamDelete') &&
    TEAMMATES.every((name) => approved.has(name))
  ) {
    return {
      notes: ['Both teammates have shut down. Cleaning up the team.'],
      blocks: [toolBlock('TeamDelete', {})],
    };
  }
  if (
    checkTasks &&
    shutdownRequested(request).size === 0 &&
    !plannedShutdown &&
    !plannedTools.has('TaskList')
  ) {
    notes.push('Checking the task list.');
    blocks.push(toolBlock('TaskList', {}));
  }
  return { notes, blocks };
}

function afterMessages(request: ScriptRequest): Reply {
  const { notes, blocks } = messageActions(request, []);
  if (blocks.length > 0) return reply({ content: [notes.join(' '), ...blocks] });
  return text(
    teammateMessages(request).length > 0
      ? 'Noted. Waiting for the team.'
      : 'demo-team lead: nothing to act on in this turn; waiting.',
  );
}

/**
 * The follow-up of tool results, plus what teammate messages delivered with them ask for: a
 * runtime hands the model the messages that arrived while its tools ran together with their
 * results (muster's mid-turn delivery), and those are read once, so they must not be ignored.
 */
function afterResultsAndMessages(request: ScriptRequest, results: ToolResult[]): Reply {
  const followUp = afterResults(request, results);
  if (teammateMessages(request).length === 0) return followUp;
  const { notes, blocks } = messageActions(request, followUp.content);
  if (blocks.length === 0) return followUp;
  const said = followUp.content.flatMap((block) => (block.type === 'text' ? [block.text] : []));
  return reply({
    content: [
      [...said, ...notes].join(' '),
      ...followUp.content.filter((block) => block.type === 'tool_use'),
      ...blocks,
    ],
    ...(followUp.fault === undefined ? {} : { fault: followUp.fault }),
  });
}

/** The demo lead's reply to one request. */
export function leadReply(request: ScriptRequest): Reply {
  const results = toolResults(request);
  if (results.length > 0) return afterResultsAndMessages(request, results);
  if (toolCalls(request).length === 0 && teammateMessages(request).length === 0) {
    return reply({
      content: [
        'I will run this as a small team: one teammate implements slugify(), another writes the tests and docs.',
        toolBlock('TeamCreate', {
          team_name: DEMO_TEAM_NAME,
          description: 'Add slugify() with tests and docs',
        }),
      ],
    });
  }
  return afterMessages(request);
}
