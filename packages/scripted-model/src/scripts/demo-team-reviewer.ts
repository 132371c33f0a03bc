/**
 * carol, the demo's read-only reviewer (agent type Explore), decided from the request alone:
 * waits for alice's word that slugify() is ready, claims the review task, reads
 * src/slugify.js, completes the task and sends team-lead a short review. She changes nothing.
 */
import { reply, text } from '../script-helpers.js';
import {
  allTeammateMessages,
  teammateMessages,
  toolCalls,
  toolResults,
} from '../script-helpers-tellers.js';
import type { Reply, ScriptRequest } from '../types.js';
import { DEMO_IMPLEMENTER, DEMO_REVIEWER, SLUGIFY_REVIEW } from './demo-team-content.js';
import {
  failed,
  isFirstTurn,
  personMessageOf,
  personNote,
  promptTaskIds,
  repositoryOf,
  shutdownReply,
  toolBlock,
  withPersonNote,
} from './demo-team-teammate-common.js';

/** Where carol stands, in one sentence (for a person who asks). */
function reviewerStatus(request: ScriptRequest, reviewId: string): string {
  const calls = toolCalls(request);
  if (calls.some((call) => call.name === 'SendMessage' && call.input.recipient === 'team-lead'))
    return `My review (task #${reviewId}) is sent to team-lead.`;
  if (calls.some((call) => call.name === 'TaskUpdate' && call.input.taskId === reviewId))
    return `I am reviewing src/slugify.js (task #${reviewId}).`;
  return `I wait for ${DEMO_IMPLEMENTER} to finish slugify() before I review it (task #${reviewId}).`;
}

function decide(request: ScriptRequest, directory: string, reviewId: string): Reply {
  const name = DEMO_REVIEWER;
  const first = toolResults(request)[0];
  if (first === undefined) {
    const message = teammateMessages(request).at(-1);
    if (message?.payload?.type === 'shutdown_request')
      return shutdownReply(message.payload.requestId, name);
    const ready = allTeammateMessages(request).some(
      (entry) => entry.from === DEMO_IMPLEMENTER && entry.payload === undefined,
    );
    const started = toolCalls(request).some(
      (call) => call.name === 'TaskUpdate' && call.input.taskId === reviewId,
    );
    if (ready && !started) {
      return reply({
        content: [
          `${DEMO_IMPLEMENTER} says slugify() is ready. Claiming the review, task #${reviewId}.`,
          toolBlock('TaskUpdate', { taskId: reviewId, owner: name, status: 'in_progress' }),
        ],
      });
    }
    const person = personMessageOf(request);
    if (person !== undefined)
      return text(personNote(name, person, reviewerStatus(request, reviewId)));
    if (isFirstTurn(request)) {
      return text(
        `I review src/slugify.js once ${DEMO_IMPLEMENTER} says it is ready (task #${reviewId}). I only read: I change nothing.`,
      );
    }
    return text(
      message
        ? `Noted (${message.payload?.type ?? `message from ${message.from}`}).`
        : 'Nothing new for me.',
    );
  }
  if (first.isError) return failed(name, first);
  switch (first.toolName) {
    case 'TaskUpdate':
      if (first.input.status === 'completed') {
        return reply({
          content: [
            'Sending the review to team-lead.',
            toolBlock('SendMessage', {
              type: 'message',
              recipient: 'team-lead',
              content: `Task #${reviewId} is done. ${SLUGIFY_REVIEW}`,
              summary: `Task #${reviewId} done: review of slugify()`,
            }),
          ],
        });
      }
      return reply({
        content: [
          'Reading the implementation.',
          toolBlock('Read', { file_path: `${directory}/src/slugify.js` }),
        ],
      });
    case 'Read':
      if (!/function slugify/.test(first.content))
        return text(
          `demo-team ${name}: src/slugify.js holds no slugify() function, so there is nothing to review yet; waiting for team-lead.`,
        );
      return reply({
        content: [
          'The code reads well; one note for later. Marking the review completed.',
          toolBlock('TaskUpdate', { taskId: reviewId, status: 'completed' }),
        ],
      });
    case 'SendMessage':
      return text(
        first.input.type === 'shutdown_response'
          ? 'Shutting down.'
          : 'Review sent to team-lead; I am available.',
      );
    default:
      return text(
        `demo-team ${name}: I did not expect a result from ${first.toolName || 'an unknown tool'}; waiting.`,
      );
  }
}

/** carol's reply to one request. */
export function reviewerReply(request: ScriptRequest): Reply {
  const directory = repositoryOf(request);
  const reviewId = promptTaskIds(request)[0];
  if (directory === undefined || reviewId === undefined) {
    return text(
      `demo-team ${DEMO_REVIEWER}: my spawn prompt names no task (#id) or the request states no working directory; waiting for team-lead.`,
    );
  }
  const base = decide(request, directory, reviewId);
  // A person's message (alone, or beside a tool result or another message): answer it, go on.
  return withPersonNote(request, base, DEMO_REVIEWER, reviewerStatus(request, reviewId));
}
