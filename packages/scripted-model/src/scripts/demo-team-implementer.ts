/**
 * alice, the demo implementer, decided from the request alone: claims the implementation task,
 * reads src/index.js, writes src/slugify.js, exports it with an Edit, runs `npm test` (the Bash
 * call that asks permission), completes the task, tells bob and the lead, approves a shutdown.
 */
import { reply, text } from '../script-helpers.js';
import { allToolResults, teammateMessages, toolResults } from '../script-helpers-tellers.js';
import type { Reply, ScriptRequest } from '../types.js';
import {
  DEMO_IMPLEMENTER,
  DEMO_TESTER,
  SLUGIFY_EXPORT,
  SLUGIFY_SOURCE,
} from './demo-team-content.js';
import {
  failed,
  isFirstTurn,
  lastNonEmptyLine,
  promptTaskIds,
  readText,
  repositoryOf,
  shutdownReply,
  shutdownRequestWithResults,
  testsOutcome,
  toolBlock,
} from './demo-team-teammate-common.js';

/** alice's reply to one request. */
export function implementerReply(request: ScriptRequest): Reply {
  const name = DEMO_IMPLEMENTER;
  const directory = repositoryOf(request);
  const taskId = promptTaskIds(request)[0];
  if (directory === undefined || taskId === undefined) {
    return text(
      `demo-team ${name}: my spawn prompt names no task (#id) or the request states no working directory; waiting for team-lead.`,
    );
  }
  const results = toolResults(request);
  const first = results[0];
  if (first === undefined) {
    const message = teammateMessages(request).at(-1);
    if (message?.payload?.type === 'shutdown_request')
      return shutdownReply(message.payload.requestId, name);
    if (isFirstTurn(request)) {
      return reply({
        content: [
          `Claiming task #${taskId}.`,
          toolBlock('TaskUpdate', { taskId, owner: name, status: 'in_progress' }),
        ],
      });
    }
    return text(
      message
        ? `Noted (${message.payload?.type ?? `message from ${message.from}`}).`
        : 'Nothing new for me.',
    );
  }
  const shutdown = shutdownRequestWithResults(request);
  if (shutdown !== undefined) return shutdownReply(shutdown.requestId, name);
  if (first.isError && first.toolName !== 'Bash') return failed(name, first);
  switch (first.toolName) {
    case 'TaskUpdate':
      if (first.input.status === 'completed') {
        const outcome = testsOutcome(request);
        return reply({
          content: [
            `Telling ${DEMO_TESTER} and team-lead.`,
            toolBlock('SendMessage', {
              type: 'message',
              recipient: DEMO_TESTER,
              content: `slugify(text) is ready in src/slugify.js and exported from src/index.js. Task #${taskId} is completed, so your tests and docs are unblocked. ${outcome}`,
              summary: 'slugify() ready, tests unblocked',
            }),
            toolBlock('SendMessage', {
              type: 'message',
              recipient: 'team-lead',
              content: `Task #${taskId} is done: slugify(text) in src/slugify.js, exported from src/index.js. ${outcome}`,
              summary: `Task #${taskId} done`,
            }),
          ],
        });
      }
      return reply({
        content: [
          'Reading the entry point first.',
          toolBlock('Read', { file_path: `${directory}/src/index.js` }),
        ],
      });
    case 'Read':
      return reply({
        content: [
          'Writing slugify() in its own module.',
          toolBlock('Write', { file_path: `${directory}/src/slugify.js`, content: SLUGIFY_SOURCE }),
        ],
      });
    case 'Write': {
      const index = allToolResults(request).find(
        (result) => result.toolName === 'Read' && !result.isError,
      );
      const anchor = index === undefined ? undefined : lastNonEmptyLine(readText(index), 'export');
      if (anchor === undefined)
        return text(
          `demo-team ${name}: src/index.js has no export line to extend; waiting for team-lead.`,
        );
      return reply({
        content: [
          'Exporting it from the entry point.',
          toolBlock('Edit', {
            file_path: `${directory}/src/index.js`,
            old_string: anchor,
            new_string: `${anchor}\n${SLUGIFY_EXPORT}`,
          }),
        ],
      });
    }
    case 'Edit':
      return reply({
        content: [
          'Running the test suite.',
          toolBlock('Bash', { command: 'npm test', description: 'Run the test suite' }),
        ],
      });
    case 'Bash':
      return reply({
        content: [
          first.isError ? testsOutcome(request) : 'The tests pass. Marking the task completed.',
          toolBlock('TaskUpdate', { taskId, status: 'completed' }),
        ],
      });
    case 'SendMessage':
      return text(
        first.input.type === 'shutdown_response'
          ? 'Shutting down.'
          : `Task #${taskId} is done; I am available.`,
      );
    default:
      return text(
        `demo-team ${name}: I did not expect a result from ${first.toolName || 'an unknown tool'}; waiting.`,
      );
  }
}
