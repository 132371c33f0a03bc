/**
 * bob, the demo's plan-mode teammate, decided from the request alone: reads the code, writes a
 * plan and submits it with ExitPlanMode, revises it after the lead's rejection, then (plan
 * approved and alice done) writes the tests, runs them, documents slugify() and reports.
 */
import { reply, text } from '../script-helpers.js';
import {
  allTeammateMessages,
  teammateMessages,
  toolCalls,
  toolResults,
} from '../script-helpers-tellers.js';
import type { Reply, ScriptRequest } from '../types.js';
import {
  DEMO_IMPLEMENTER,
  DEMO_TESTER,
  PLAN_FIRST,
  PLAN_REVISED,
  SLUGIFY_DOCS,
  SLUGIFY_TESTS,
} from './demo-team-content.js';
import {
  failed,
  isFirstTurn,
  lastNonEmptyLine,
  planFileOf,
  promptTaskIds,
  readText,
  repositoryOf,
  shutdownReply,
  shutdownRequestWithResults,
  testsOutcome,
  toolBlock,
} from './demo-team-teammate-common.js';
import { allPlanAnswers, planAnswerOf, type PlanAnswer } from './demo-team-plan-answer.js';

function submitPlan(request: ScriptRequest, plan: string, note: string): Reply {
  const planFile = planFileOf(request);
  if (planFile === undefined) return reply({ content: [note, toolBlock('ExitPlanMode', {})] });
  return reply({ content: [note, toolBlock('Write', { file_path: planFile, content: plan })] });
}

function startWork(testsId: string): Reply {
  return reply({
    content: [
      `slugify() is ready. Claiming task #${testsId}.`,
      toolBlock('TaskUpdate', { taskId: testsId, owner: DEMO_TESTER, status: 'in_progress' }),
    ],
  });
}

/**
 * ExitPlanMode refused: when Claude Code names the plan file it wants ("No plan file found at
 * …"), write the plan there and submit again (once); otherwise say why and wait.
 */
function afterPlanRefused(request: ScriptRequest, reason: string): Reply {
  const wanted = /(\/\S*\/plans\/[^\s"'`<>()]+\.md)/.exec(reason)?.[1];
  const wroteThere = toolCalls(request).some(
    (call) => call.name === 'Write' && call.input.file_path === wanted,
  );
  if (wanted === undefined || wroteThere) {
    return text(`demo-team ${DEMO_TESTER}: submitting the plan failed (${reason.slice(0, 200)}).`);
  }
  const rejected = allPlanAnswers(request).some((answer) => !answer.approved);
  return reply({
    content: [
      'Writing the plan to the plan file first.',
      toolBlock('Write', { file_path: wanted, content: rejected ? PLAN_REVISED : PLAN_FIRST }),
    ],
  });
}

/**
 * The lead answered the plan: revise it after a rejection; after the approval start on the
 * tests once alice is done, else wait for her.
 */
function afterPlanAnswer(
  request: ScriptRequest,
  answer: PlanAnswer,
  testsId: string,
  startable: boolean,
): Reply {
  if (!answer.approved) {
    return submitPlan(
      request,
      PLAN_REVISED,
      `Revising the plan: ${answer.feedback ?? 'no feedback given'}`,
    );
  }
  if (startable) return startWork(testsId);
  return text(`Plan approved. Waiting for ${DEMO_IMPLEMENTER} to finish slugify().`);
}

/** bob's reply to one request. */
export function testerReply(request: ScriptRequest): Reply {
  const name = DEMO_TESTER;
  const directory = repositoryOf(request);
  const [testsId, docsId] = promptTaskIds(request);
  if (directory === undefined || testsId === undefined || docsId === undefined) {
    return text(
      `demo-team ${name}: my spawn prompt names no tasks (#id) or the request states no working directory; waiting for team-lead.`,
    );
  }
  const seen = allTeammateMessages(request);
  const planApproved = allPlanAnswers(request).some((answer) => answer.approved);
  const implementationReady = seen.some(
    (message) => message.from === DEMO_IMPLEMENTER && message.payload === undefined,
  );
  const working = toolCalls(request).some(
    (call) =>
      call.name === 'TaskUpdate' && call.input.taskId === testsId && call.input.owner === name,
  );
  const results = toolResults(request);
  const first = results[0];
  if (first === undefined) {
    const message = teammateMessages(request).at(-1);
    if (message?.payload?.type === 'shutdown_request')
      return shutdownReply(message.payload.requestId, name);
    if (isFirstTurn(request)) {
      return reply({
        content: [
          'Reading the code before I plan.',
          toolBlock('Read', { file_path: `${directory}/src/index.js` }),
        ],
      });
    }
    const answer = planAnswerOf(request);
    if (answer !== undefined)
      return afterPlanAnswer(request, answer, testsId, implementationReady && !working);
    if (message?.from === DEMO_IMPLEMENTER && message.payload === undefined) {
      if (planApproved && !working) return startWork(testsId);
      return text(
        planApproved
          ? 'Thanks, already on it.'
          : `Thanks, ${DEMO_IMPLEMENTER}. I start once my plan is approved.`,
      );
    }
    // muster's runtime may hand a waiting teammate a task itself (plain text, no message).
    if (message === undefined && planApproved && implementationReady && !working)
      return startWork(testsId);
    return text(
      message
        ? `Noted (${message.payload?.type ?? `message from ${message.from}`}).`
        : 'Nothing new for me.',
    );
  }
  // The lead's messages that arrive while a tool runs come with its result (mid-turn delivery).
  const shutdown = shutdownRequestWithResults(request);
  if (shutdown !== undefined) return shutdownReply(shutdown.requestId, name);
  const answer =
    first.toolName === 'ExitPlanMode' && !first.isError ? planAnswerOf(request) : undefined;
  if (answer !== undefined)
    return afterPlanAnswer(request, answer, testsId, implementationReady && !working);
  if (first.isError && first.toolName !== 'Bash' && first.toolName !== 'ExitPlanMode') {
    return failed(name, first);
  }
  const path = String(first.input.file_path ?? '');
  switch (first.toolName) {
    case 'Read':
      if (path.endsWith('/src/slugify.js')) {
        return reply({
          content: [
            'Writing the tests.',
            toolBlock('Write', {
              file_path: `${directory}/test/slugify.test.js`,
              content: SLUGIFY_TESTS,
            }),
          ],
        });
      }
      if (path.endsWith('/README.md')) {
        const anchor = lastNonEmptyLine(readText(first));
        if (anchor === undefined)
          return text(`demo-team ${name}: README.md is empty; waiting for team-lead.`);
        return reply({
          content: [
            'Adding slugify() to the API list.',
            toolBlock('Edit', {
              file_path: `${directory}/README.md`,
              old_string: anchor,
              new_string: `${anchor}\n${SLUGIFY_DOCS}`,
            }),
          ],
        });
      }
      return submitPlan(request, PLAN_FIRST, 'Here is my plan.');
    case 'Write':
      if (path.includes('/plans/')) {
        return reply({
          content: [
            'Submitting the plan to team-lead.',
            toolBlock('ExitPlanMode', {
              allowedPrompts: [{ tool: 'Bash', prompt: 'run the tests' }],
            }),
          ],
        });
      }
      return reply({
        content: [
          'Running the tests.',
          toolBlock('Bash', { command: 'node --test', description: 'Run the tests' }),
        ],
      });
    case 'ExitPlanMode':
      return first.isError
        ? afterPlanRefused(request, first.content)
        : text('Plan submitted to team-lead; waiting for approval.');
    case 'Bash':
      return reply({
        content: [
          first.isError ? testsOutcome(request) : 'The tests pass.',
          toolBlock('TaskUpdate', { taskId: testsId, status: 'completed' }),
          toolBlock('TaskUpdate', { taskId: docsId, owner: name, status: 'in_progress' }),
        ],
      });
    case 'TaskUpdate': {
      const docs = results.find((result) => result.input.taskId === docsId);
      if (docs?.input.status === 'completed') {
        return reply({
          content: [
            'Reporting to team-lead.',
            toolBlock('SendMessage', {
              type: 'message',
              recipient: 'team-lead',
              content: `Tasks #${testsId} and #${docsId} are done: test/slugify.test.js covers words, punctuation, accents and the empty string, and README.md documents slugify(). ${testsOutcome(request)}`,
              summary: `Tasks #${testsId} and #${docsId} done`,
            }),
          ],
        });
      }
      if (docs?.input.status === 'in_progress')
        return reply({
          content: ['Now the docs.', toolBlock('Read', { file_path: `${directory}/README.md` })],
        });
      return reply({
        content: [
          'Reading the implementation.',
          toolBlock('Read', { file_path: `${directory}/src/slugify.js` }),
        ],
      });
    }
    case 'Edit':
      return reply({
        content: [
          'Docs written.',
          toolBlock('TaskUpdate', { taskId: docsId, status: 'completed' }),
        ],
      });
    case 'SendMessage':
      return text(
        first.input.type === 'shutdown_response'
          ? 'Shutting down.'
          : 'Tests and docs are done; I am available.',
      );
    default:
      return text(
        `demo-team ${name}: I did not expect a result from ${first.toolName || 'an unknown tool'}; waiting.`,
      );
  }
}
