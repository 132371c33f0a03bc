/**
 * A script for the real Claude Code 2.1.45 run headless: the lead creates a team, spawns one
 * in-process teammate, sends it a message; the teammate answers and goes idle; the lead asks it
 * to shut down, the teammate approves, and the lead ends its turn so the run exits.
 *
 * Why the lead holds its first turn open: with `-p`, Claude Code 2.1.45 reads the lead's inbox
 * only after the lead's turn has ended AND no in-process teammate task is still running (its
 * print loop waits for running tasks first). So the lead must ask for the shutdown inside its
 * first turn: before it does, this script waits (bounded) until the teammate has sent its
 * reply. Once the teammate approved and stopped, Claude Code delivers the lead's unread inbox
 * (the reply, idle notices, `shutdown_approved`) as one new prompt. The lead then calls
 * `TeamDelete` (a `-p` run with a team still set up never exits: it prompts the lead to clean
 * up) and ends with a text, and the run exits 0.
 *
 * Every decision reads only what the request carries: the lead is offered `Task` and
 * `TeamCreate`, a teammate's first user message is its spawn prompt from team-lead, a side
 * request offers no tools. What was already done is read from the conversation (the tool calls
 * made so far, the teammate messages delivered), never from counters, so a retried or repeated
 * request gets the same answer.
 */
import {
  allTeammateMessages,
  isLeadRequest,
  isTeammateRequest,
  teammateMessages,
  toolCalls,
  toolNames,
} from '../../script-helpers-tellers.js';
import type { Reply, Script, ScriptRequest } from '../../types.js';

/** The team the lead creates. */
export const PEER_TEAM = 'peer-team';
/** The teammate the lead spawns. */
export const PEER_TEAMMATE = 'alice';
/** A token only the lead's message to the teammate carries. */
export const LEAD_MESSAGE = 'PING-7f3a: please confirm you are ready.';
/** A token only the teammate's reply carries. */
export const TEAMMATE_REPLY = 'PONG-7f3a: alice is ready.';
/** The lead's last text, the run's result. */
export const LEAD_DONE = 'alice answered, shut down, and the team is deleted. Done.';
/** How long the lead waits for the teammate's reply before the script fails (500 api_error). */
export const REPLY_WAIT_MS = 30_000;
/** The text a side request (no tools: title, summary, …) gets. */
export const SIDE_REPLY = 'Scripted side answer';

/** Which agent sent a request, from what it carries. */
export type PeerRole = 'lead' | 'teammate' | 'side' | 'unknown';

/** Tells the lead's requests from the teammate's and from Claude Code's side requests. */
export function peerRoleOf(request: ScriptRequest): PeerRole {
  if (isTeammateRequest(request)) return 'teammate';
  if (isLeadRequest(request)) return 'lead';
  if (toolNames(request).length === 0) return 'side';
  return 'unknown';
}

/** The step a reply plays, named for the request log and the test's expected sequence. */
export type PeerStep =
  | 'TeamCreate'
  | 'Task'
  | 'SendMessage message'
  | 'SendMessage shutdown_request'
  | 'wait for shutdown'
  | 'TeamDelete'
  | 'done'
  | 'teammate ready'
  | 'SendMessage reply'
  | 'teammate idle'
  | 'SendMessage shutdown_response'
  | 'side'
  | 'unknown';

const sentMessageOfType = (request: ScriptRequest, type: string): boolean =>
  toolCalls(request).some((call) => call.name === 'SendMessage' && call.input.type === type);

const called = (request: ScriptRequest, name: string): boolean =>
  toolCalls(request).some((call) => call.name === name);

function leadStep(request: ScriptRequest): PeerStep {
  if (!called(request, 'TeamCreate')) return 'TeamCreate';
  if (!called(request, 'Task')) return 'Task';
  if (!sentMessageOfType(request, 'message')) return 'SendMessage message';
  if (!sentMessageOfType(request, 'shutdown_request')) return 'SendMessage shutdown_request';
  const replied = allTeammateMessages(request).some(
    (message) => message.from === PEER_TEAMMATE && message.text.includes(TEAMMATE_REPLY),
  );
  if (!replied) return 'wait for shutdown';
  return called(request, 'TeamDelete') ? 'done' : 'TeamDelete';
}

function shutdownRequestIdOf(request: ScriptRequest): string | undefined {
  const payload = teammateMessages(request).find(
    (message) => message.from === 'team-lead' && message.payload?.type === 'shutdown_request',
  )?.payload;
  return typeof payload?.requestId === 'string' ? payload.requestId : undefined;
}

function teammateStep(request: ScriptRequest): PeerStep {
  if (shutdownRequestIdOf(request) !== undefined) return 'SendMessage shutdown_response';
  const asked = allTeammateMessages(request).some(
    (message) => message.from === 'team-lead' && message.text.includes(LEAD_MESSAGE),
  );
  if (asked && !sentMessageOfType(request, 'message')) return 'SendMessage reply';
  return asked ? 'teammate idle' : 'teammate ready';
}

/** The step this request gets, from its role and its conversation. */
export function peerStepOf(request: ScriptRequest): PeerStep {
  switch (peerRoleOf(request)) {
    case 'lead':
      return leadStep(request);
    case 'teammate':
      return teammateStep(request);
    case 'side':
      return 'side';
    default:
      return 'unknown';
  }
}

const toolUse = (name: string, input: Record<string, unknown>): Reply => ({
  content: [{ type: 'tool_use', name, input }],
});
const text = (value: string): Reply => ({ content: [{ type: 'text', text: value }] });

/** Whether a teammate request shows the teammate's reply already sent (its SendMessage ran). */
function teammateHasReplied(request: ScriptRequest): boolean {
  return peerRoleOf(request) === 'teammate' && sentMessageOfType(request, 'message');
}

/** The reply for a request: see the module comment. */
export const oneTeammateScript: Script = async (request, context) => {
  const step = peerStepOf(request);
  switch (step) {
    case 'TeamCreate':
      return toolUse('TeamCreate', {
        team_name: PEER_TEAM,
        description: 'A scripted lead and one teammate',
      });
    case 'Task':
      return toolUse('Task', {
        description: 'Answer the lead',
        prompt: `You are ${PEER_TEAMMATE}. Wait for a message from team-lead and answer it.`,
        subagent_type: 'general-purpose',
        name: PEER_TEAMMATE,
        team_name: PEER_TEAM,
      });
    case 'SendMessage message':
      return toolUse('SendMessage', {
        type: 'message',
        recipient: PEER_TEAMMATE,
        content: LEAD_MESSAGE,
        summary: 'lead asks alice to confirm',
      });
    case 'SendMessage shutdown_request':
      await context.waitForRequest(teammateHasReplied, {
        timeoutMs: REPLY_WAIT_MS,
        description: `${PEER_TEAMMATE}'s reply to the lead (a request after its SendMessage ran)`,
      });
      return toolUse('SendMessage', {
        type: 'shutdown_request',
        recipient: PEER_TEAMMATE,
        content: 'Thanks, we are done.',
      });
    case 'wait for shutdown':
      return text(`Asked ${PEER_TEAMMATE} to shut down.`);
    case 'TeamDelete':
      return toolUse('TeamDelete', {});
    case 'done':
      return text(LEAD_DONE);
    case 'teammate ready':
      return text('Ready; waiting for the lead.');
    case 'SendMessage reply':
      return toolUse('SendMessage', {
        type: 'message',
        recipient: 'team-lead',
        content: TEAMMATE_REPLY,
        summary: 'alice confirms',
      });
    case 'teammate idle':
      return text('Answered the lead.');
    case 'SendMessage shutdown_response':
      return toolUse('SendMessage', {
        type: 'shutdown_response',
        request_id: shutdownRequestIdOf(request),
        approve: true,
      });
    case 'side':
      return text(SIDE_REPLY);
    default:
      return text('This scripted run has no part for this request.');
  }
};
