/**
 * The demo lead's decisions, each from the request alone: set the team up (see
 * demo-team-lead-setup.ts), answer bob's plans when the lead's model reviews them (reject the
 * first, approve the revision), check the task list when a teammate reports, ask all three to
 * shut down once every task is completed, and delete the team once every shutdown is approved.
 * A person's message (or an interrupted turn) makes it go on from wherever it stands: a turn
 * that was cut short is picked up, and otherwise it checks the task list for the person.
 */
import { reply, text } from '../script-helpers.js';
import {
  allTeammateMessages,
  allToolResults,
  messagesOf,
  teammateMessages,
  toolCalls,
  toolResults,
  type ToolResult,
} from '../script-helpers-tellers.js';
import type { Reply, ReplyBlock, ScriptRequest } from '../types.js';
import {
  DEMO_MERGED,
  DEMO_MERGE_REQUEST,
  DEMO_TEAMMATES,
  PLAN_FEEDBACK,
} from './demo-team-content.js';
import {
  ALREADY_LEADS,
  SPAWN_CHECK_TEXT,
  demoTaskIds,
  failedSpawn,
  isInterrupted,
  setupReply,
  toolBlock,
} from './demo-team-lead-setup.js';

export { demoTaskIds } from './demo-team-lead-setup.js';

/** How long the lead pauses before it answers a person's message: time to try Esc. */
export const PERSON_REPLY_PAUSE_MS = 3_000;

const ALL_DONE_TEXT =
  'Done: slugify(text) is in src/slugify.js and exported from src/index.js, test/slugify.test.js covers it, README.md documents it, and carol reviewed it. The team has been shut down and deleted.';

/** Task ids (of ours) that a TaskList result still shows as not completed. */
function openTasks(result: ToolResult, ids: Record<string, string>): string[] {
  const ours = new Set(Object.values(ids));
  const open: string[] = [];
  for (const match of result.content.matchAll(/#(\d+)\s*\[([a-z_]+)\]/g)) {
    if (ours.has(match[1] ?? '') && match[2] !== 'completed') open.push(match[1] ?? '');
  }
  return open;
}

/** Teammates a shutdown request went to (a call that failed or was interrupted does not count). */
function shutdownRequested(request: ScriptRequest): Set<string> {
  return new Set(
    allToolResults(request)
      .filter(
        (result) =>
          result.toolName === 'SendMessage' &&
          result.input.type === 'shutdown_request' &&
          !result.isError,
      )
      .map((result) => String(result.input.recipient)),
  );
}

function shutdownApproved(request: ScriptRequest): Set<string> {
  return new Set(
    allTeammateMessages(request)
      .filter((message) => message.payload?.type === 'shutdown_approved')
      .map((message) => message.from),
  );
}

const NOT_LEADING = /not leading a team/i;

/** Whether TeamDelete went through (or said there is no team left to delete). */
function teamDeleted(request: ScriptRequest): boolean {
  return allToolResults(request).some(
    (result) =>
      result.toolName === 'TeamDelete' && (!result.isError || NOT_LEADING.test(result.content)),
  );
}

/** TeamDelete once every teammate approved its shutdown and the team is still there. */
function closingReply(request: ScriptRequest): Reply | undefined {
  if (teamDeleted(request)) return undefined;
  if (toolCalls(request).some((call) => call.name === 'TeamDelete')) return undefined;
  const approved = shutdownApproved(request);
  if (!DEMO_TEAMMATES.every((name) => approved.has(name))) return undefined;
  return reply({
    content: [
      'All three teammates have shut down. Cleaning up the team.',
      toolBlock('TeamDelete', {}),
    ],
  });
}

function afterTaskList(request: ScriptRequest, result: ToolResult): Reply {
  const ids = demoTaskIds(request);
  if (result.isError || ids === undefined)
    return text(`demo-team lead: TaskList failed (${result.content.slice(0, 200)}); waiting.`);
  const open = openTasks(result, ids);
  if (open.length > 0)
    return text(`Still open: ${open.map((id) => `#${id}`).join(', ')}. Waiting for the team.`);
  const closing = closingReply(request);
  if (closing !== undefined) return closing;
  const asked = shutdownRequested(request);
  const toAsk = DEMO_TEAMMATES.filter((name) => !asked.has(name));
  if (toAsk.length === 0) return text('Every task is completed; waiting for the shutdown answers.');
  return reply({
    content: [
      'All four tasks are completed. Asking the team to shut down.',
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

/** Errors the lead expects and reads as answers, not failures. */
function isExpectedError(result: ToolResult): boolean {
  return (
    (result.toolName === 'SendMessage' && result.input.content === SPAWN_CHECK_TEXT) ||
    (result.toolName === 'TeamCreate' && ALREADY_LEADS.test(result.content)) ||
    (result.toolName === 'TeamDelete' && NOT_LEADING.test(result.content))
  );
}

/** Goes on after an interruption or a person's message: setup, closing, else the task list. */
function goOn(request: ScriptRequest, note: string, pause: boolean): Reply {
  const spawnFailure = failedSpawn(request);
  if (spawnFailure !== undefined)
    return text(
      `demo-team lead: spawning ${String(spawnFailure.input.name)} failed (${spawnFailure.content.slice(0, 200)}), so I cannot go on. Start the demo again.`,
    );
  if (teamDeleted(request))
    return text(`${ALL_DONE_TEXT} There is nothing left to do; press Ctrl-C to leave.`);
  const setup = setupReply(request, note);
  if (setup !== undefined) return setup;
  const closing = closingReply(request);
  if (closing !== undefined) return closing;
  return reply({
    content: [
      pause
        ? `${note} Checking the task list. (The scripted lead paused ${PERSON_REPLY_PAUSE_MS / 1000} s before this reply, so there was time to try Esc.)`
        : `${note} Checking the task list.`,
      toolBlock('TaskList', {}),
    ],
    ...(pause ? { fault: { kind: 'pings-only', durationMs: PERSON_REPLY_PAUSE_MS } } : {}),
  });
}

/** The branch a teammate asks the lead to merge (`Please merge branch <name> into …`). */
function branchToMerge(text: string): string | undefined {
  const start = text.trim();
  if (!start.startsWith(DEMO_MERGE_REQUEST)) return undefined;
  return /^\S+/.exec(start.slice(DEMO_MERGE_REQUEST.length).trim())?.[0];
}

/** The lead merged a teammate's branch (its Bash `git merge` went through): tell the teammate. */
function afterMerge(result: ToolResult): Reply {
  const branch = String(result.input.command).split(/\s+/).at(-1) ?? '';
  const recipient = String(result.input.description ?? '').replace(
    /^Merge (\S+)'s branch.*$/,
    '$1',
  );
  return reply({
    content: [
      `${branch} is merged into the main checkout.`,
      toolBlock('SendMessage', {
        type: 'message',
        recipient,
        content: `${DEMO_MERGED} ${branch} into the main checkout (fast-forward). Mark your task completed and tell the others.`,
        summary: `Merged ${branch}`,
      }),
    ],
  });
}

function afterResults(request: ScriptRequest, results: ToolResult[]): Reply {
  if (results.some(isInterrupted))
    return goOn(request, 'My last step was interrupted; going on from where it stopped.', false);
  const names = new Set(results.map((result) => result.toolName));
  const failed = results.find((result) => result.isError && !isExpectedError(result));
  if (failed?.toolName === 'TeamDelete' && /still has teammates/i.test(failed.content)) {
    const retry = retryTeamDelete(request);
    if (retry !== undefined) return retry;
  }
  if (failed !== undefined && !names.has('TaskList')) {
    return text(
      `demo-team lead: ${failed.toolName || 'a tool'} failed: ${failed.content.slice(0, 300)}. I stop here.`,
    );
  }
  const setup = setupReply(request);
  if (setup !== undefined) return setup;
  const merge = results.find((result) => result.toolName === 'Bash');
  if (merge !== undefined) return afterMerge(merge);
  if (names.has('TaskList'))
    return afterTaskList(
      request,
      results.find((result) => result.toolName === 'TaskList') as ToolResult,
    );
  if (names.has('TeamDelete')) return text(ALL_DONE_TEXT);
  const kinds = new Set(results.map((result) => result.input.type));
  if (kinds.has('shutdown_request'))
    return closingReply(request) ?? text('Shutdown requested; waiting for all three to approve.');
  if (names.has('Task') || results.some((result) => result.input.content === SPAWN_CHECK_TEXT))
    return text(`${DEMO_TEAMMATES.join(', ')} are on it. I will wait for their reports.`);
  if (names.has('SendMessage'))
    return closingReply(request) ?? text('Answered. Waiting for the team.');
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

/** What the lead does about the teammate messages of the last user message. */
interface Reactions {
  notes: string[];
  blocks: ReplyBlock[];
  /** A teammate reported (plain text): the task list is worth a look. */
  checkTasks: boolean;
}

function reactionsTo(request: ScriptRequest): Reactions {
  const reactions: Reactions = { notes: [], blocks: [], checkTasks: false };
  for (const message of teammateMessages(request)) {
    const payload = message.payload;
    const branch = payload === undefined ? branchToMerge(message.text) : undefined;
    if (branch !== undefined) {
      reactions.notes.push(`Merging ${message.from}'s branch ${branch} into the main checkout.`);
      reactions.blocks.push(
        toolBlock('Bash', {
          command: `git merge --ff-only ${branch}`,
          description: `Merge ${message.from}'s branch into the main checkout`,
        }),
      );
      continue;
    }
    if (payload === undefined) {
      reactions.checkTasks = true;
      continue;
    }
    if (payload.type === 'plan_approval_request' && typeof payload.requestId === 'string') {
      const block = answerPlan(request, message.from, payload.requestId);
      reactions.notes.push(
        (block as { input: { approve: boolean } }).input.approve
          ? `Approving ${message.from}'s revised plan.`
          : `${message.from}'s plan needs one more case.`,
      );
      reactions.blocks.push(block);
    } else if (payload.type === 'shutdown_rejected') {
      reactions.notes.push(`${message.from} is not ready to stop; asking again.`);
      reactions.blocks.push(
        toolBlock('SendMessage', {
          type: 'shutdown_request',
          recipient: message.from,
          content: 'Every task is completed; please shut down now.',
        }),
      );
    }
  }
  return reactions;
}

function afterMessages(request: ScriptRequest): Reply {
  const messages = teammateMessages(request);
  const closing = closingReply(request);
  if (closing !== undefined) return closing;
  const { notes, blocks, checkTasks } = reactionsTo(request);
  if (checkTasks && shutdownRequested(request).size === 0) {
    notes.push('Checking the task list.');
    blocks.push(toolBlock('TaskList', {}));
  }
  if (blocks.length > 0) return reply({ content: [notes.join(' '), ...blocks] });
  return text(
    messages.length > 0
      ? 'Noted. Waiting for the team.'
      : 'demo-team lead: nothing to act on in this turn; waiting.',
  );
}

/** Teammate messages that arrived mid-turn, beside tool results: their reactions join the reply. */
function withMidTurnMessages(request: ScriptRequest, base: Reply): Reply {
  if (teammateMessages(request).length === 0) return base;
  const { notes, blocks, checkTasks } = reactionsTo(request);
  const calls = base.content.filter((block) => block.type === 'tool_use');
  const planned = (name: string) =>
    calls.some((block) => (block as { name: string }).name === name);
  const closing = planned('TeamDelete') ? undefined : closingReply(request);
  if (closing !== undefined) {
    // The last shutdown approval came with a result: deleting the team is all there is to do.
    return closing;
  }
  if (
    checkTasks &&
    shutdownRequested(request).size === 0 &&
    !planned('TaskList') &&
    !calls.some(
      (block) => (block as { input: { type?: unknown } }).input.type === 'shutdown_request',
    )
  )
    blocks.push(toolBlock('TaskList', {}));
  if (blocks.length === 0) return base;
  const { stopReason: _ignored, ...rest } = base;
  return { ...rest, content: [...base.content, ...reply({ content: notes }).content, ...blocks] };
}

/** How many texts of the person the last user message holds (two or more: a turn was cut short). */
function personTexts(request: ScriptRequest): number {
  const users = messagesOf(request).filter((message) => message.role === 'user');
  return (users.at(-1)?.content ?? []).filter(
    (block) =>
      block.type === 'text' &&
      typeof block.text === 'string' &&
      block.text.replace(/<system-reminder>[\s\S]*?<\/system-reminder>/g, '').trim() !== '' &&
      !block.text.trimStart().startsWith('<teammate-message'),
  ).length;
}

/** The demo lead's reply to one request. */
export function leadReply(request: ScriptRequest): Reply {
  const results = toolResults(request);
  if (results.length > 0) return withMidTurnMessages(request, afterResults(request, results));
  if (teammateMessages(request).length > 0) return afterMessages(request);
  // The person's text: the prompt, or a message while the team works.
  if (toolCalls(request).length === 0) return setupReply(request) ?? text('Nothing to do.');
  const cutShort = personTexts(request) > 1;
  return goOn(
    request,
    cutShort ? 'Going on after the interruption.' : 'Let me see where the team stands.',
    !cutShort,
  );
}
