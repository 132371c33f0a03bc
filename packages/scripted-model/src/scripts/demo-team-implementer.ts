/**
 * alice, the demo implementer, decided from the request alone: claims the implementation task,
 * reads src/index.js, writes src/slugify.js, exports it with an Edit, runs `npm test` (the Bash
 * call that asks permission), completes the task, tells bob, carol and the lead, approves a
 * shutdown. A person's message gets a short answer, and the work goes on.
 *
 * In a git worktree of her own (her working directory is not the repository her spawn prompt
 * names) she commits after the tests (`git add -A && git commit …`), asks team-lead to merge
 * her branch, and completes the task once the lead says it merged it.
 */

import { reply, text } from '../script-helpers.js';
import {
  allToolResults,
  teammateMessages,
  toolCalls,
  toolResults,
} from '../script-helpers-tellers.js';
import type { Reply, ScriptRequest } from '../types.js';
import {
  DEMO_IMPLEMENTER,
  DEMO_MERGED,
  DEMO_MERGE_REQUEST,
  DEMO_REVIEWER,
  DEMO_TESTER,
  SLUGIFY_EXPORT,
  SLUGIFY_SOURCE,
} from './demo-team-content.js';
import {
  failed,
  isFirstTurn,
  isGitCommand,
  lastNonEmptyLine,
  mainRepositoryOf,
  personMessageOf,
  personNote,
  promptTaskIds,
  readText,
  repositoryOf,
  shutdownReply,
  shutdownRequestWithResults,
  testsOutcome,
  toolBlock,
  withPersonNote,
} from './demo-team-teammate-common.js';

/** The commit command alice runs in her worktree. */
export const DEMO_COMMIT_COMMAND = 'git add -A && git commit -m "Add slugify(text)"';

/** The branch a `git commit` output names (`[branch 1a2b3c4] message`). */
function committedBranch(output: string): string | undefined {
  return /^\[(\S+) (?:\(root-commit\) )?[0-9a-f]{4,}\]/m.exec(output)?.[1];
}

/** Whether alice works in a worktree of her own: her directory is not the named repository. */
function inWorktree(request: ScriptRequest, directory: string): boolean {
  const main = mainRepositoryOf(request);
  return main !== undefined && main !== directory;
}

/** Where alice stands, in one sentence (for a person who asks). */
function implementerStatus(request: ScriptRequest, taskId: string): string {
  const done = toolCalls(request).some(
    (call) => call.name === 'TaskUpdate' && call.input.status === 'completed',
  );
  return done
    ? `Task #${taskId} (slugify() in src/slugify.js) is done and reported.`
    : `I am implementing slugify() in src/slugify.js (task #${taskId}).`;
}

/** alice's reply to one request. */
export function implementerReply(request: ScriptRequest): Reply {
  const directory = repositoryOf(request);
  const taskId = promptTaskIds(request)[0];
  if (directory === undefined || taskId === undefined) {
    return text(
      `demo-team ${DEMO_IMPLEMENTER}: my spawn prompt names no task (#id) or the request states no working directory; waiting for team-lead.`,
    );
  }
  const base = decide(request, directory, taskId);
  // A person's message (alone, or beside a tool result or another message): answer it, go on.
  return withPersonNote(request, base, DEMO_IMPLEMENTER, implementerStatus(request, taskId));
}

function decide(request: ScriptRequest, directory: string, taskId: string): Reply {
  const name = DEMO_IMPLEMENTER;
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
    if (message?.from === 'team-lead' && message.text.trim().startsWith(DEMO_MERGED)) {
      return reply({
        content: [
          'team-lead merged my branch into the main checkout. Marking the task completed.',
          toolBlock('TaskUpdate', { taskId, status: 'completed' }),
        ],
      });
    }
    const person = personMessageOf(request);
    if (person !== undefined)
      return text(personNote(name, person, implementerStatus(request, taskId)));
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
            `Telling ${DEMO_TESTER}, ${DEMO_REVIEWER} and team-lead.`,
            toolBlock('SendMessage', {
              type: 'message',
              recipient: DEMO_TESTER,
              content: `slugify(text) is ready in src/slugify.js and exported from src/index.js. Task #${taskId} is completed, so your tests and docs are unblocked. ${outcome}`,
              summary: 'slugify() ready, tests unblocked',
            }),
            toolBlock('SendMessage', {
              type: 'message',
              recipient: DEMO_REVIEWER,
              content: `slugify(text) is ready in src/slugify.js for your review (task #${taskId} is completed). ${outcome}`,
              summary: 'slugify() ready for review',
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
    case 'Bash': {
      if (isGitCommand(first.input.command)) {
        const branch = committedBranch(first.content);
        if (first.isError || branch === undefined) return failed(name, first);
        return reply({
          content: [
            `Committed on ${branch}. Asking team-lead to merge it.`,
            toolBlock('SendMessage', {
              type: 'message',
              recipient: 'team-lead',
              content: `${DEMO_MERGE_REQUEST} ${branch} into the main checkout: it holds slugify(text) in src/slugify.js, exported from src/index.js, committed in my worktree ${directory}. ${testsOutcome(request)}`,
              summary: `Merge ${branch}`,
            }),
          ],
        });
      }
      const outcome = first.isError ? testsOutcome(request) : 'The tests pass.';
      if (inWorktree(request, directory)) {
        return reply({
          content: [
            `${outcome} Committing my work on my worktree's branch.`,
            toolBlock('Bash', {
              command: DEMO_COMMIT_COMMAND,
              description: "Commit slugify() on the worktree's branch",
            }),
          ],
        });
      }
      return reply({
        content: [
          first.isError ? outcome : `${outcome} Marking the task completed.`,
          toolBlock('TaskUpdate', { taskId, status: 'completed' }),
        ],
      });
    }
    case 'SendMessage':
      if (String(first.input.content ?? '').startsWith(DEMO_MERGE_REQUEST))
        return text('Waiting for team-lead to merge my branch.');
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
