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
  PLAN_FEEDBACK,
  PLAN_FIRST,
  PLAN_REVISED,
  SLUGIFY_DOCS,
  SLUGIFY_TESTS,
} from './demo-team-content.js';
import {
  failed,
  isFirstTurn,
  lastNonEmptyLine,
  personMessageOf,
  personNote,
  planFileOf,
  promptTaskIds,
  readText,
  repositoryOf,
  shutdownReply,
  shutdownRequestWithResults,
  testsOutcome,
  toolBlock,
  withPersonNote,
} from './demo-team-teammate-common.js';
import { allPlanAnswers, planAnswerOf, type PlanAnswer } from './demo-team-plan-answer.js';

function submitPlan(request: ScriptRequest, plan: string, note: string): Reply {
  const planFile = planFileOf(request);
  if (planFile === undefined) return reply({ content: [note, toolBlock('ExitPlanMode', {})] });
  return reply({ content: [note, toolBlock('Write', { file_path: planFile, content: plan })] });
}

/** The revised plan, naming the feedback it answers when it is not the scripted lead's own. */
function revisedPlan(feedback: string | undefined): string {
  if (feedback === undefined || feedback === PLAN_FEEDBACK) return PLAN_REVISED;
  return `${PLAN_REVISED}5. Feedback taken in: ${feedback.replace(/\s+/g, ' ').slice(0, 300)}\n`;
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
      revisedPlan(answer.feedback),
      `Revising the plan: ${answer.feedback ?? 'no feedback given'}`,
    );
  }
  if (startable) return startWork(testsId);
  return text(`Plan approved. Waiting for ${DEMO_IMPLEMENTER} to finish slugify().`);
}

/** Where bob stands, in one sentence (for a person who asks). */
function testerStatus(request: ScriptRequest, testsId: string, docsId: string): string {
  const calls = toolCalls(request);
  if (calls.some((call) => call.name === 'SendMessage' && call.input.recipient === 'team-lead'))
    return `Tasks #${testsId} and #${docsId} (tests and docs) are done and reported.`;
  if (calls.some((call) => call.name === 'TaskUpdate' && call.input.owner === DEMO_TESTER))
    return `I am writing the tests and docs (tasks #${testsId} and #${docsId}).`;
  if (allPlanAnswers(request).some((answer) => answer.approved))
    return `My plan is approved; I start once ${DEMO_IMPLEMENTER} says slugify() is ready.`;
  if (calls.some((call) => call.name === 'ExitPlanMode')) return 'My plan waits for approval.';
  return 'I am reading the code to write my plan.';
}

/** bob's reply to one request. */
export function testerReply(request: ScriptRequest): Reply {
  const directory = repositoryOf(request);
  const [testsId, docsId] = promptTaskIds(request);
  if (directory === undefined || testsId === undefined || docsId === undefined) {
    return text(
      `demo-team ${DEMO_TESTER}: my spawn prompt names no tasks (#id) or the request states no working directory; waiting for team-lead.`,
    );
  }
  const base = decide(request, directory, testsId, docsId);
  // A person's message (alone, or beside a tool result or another message): answer it, go on.
  return withPersonNote(request, base, DEMO_TESTER, testerStatus(request, testsId, docsId));
}

function decide(request: ScriptRequest, directory: string, testsId: string, docsId: string): Reply {
  const name = DEMO_TESTER;
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
    // alice's word may come with other messages, or have come before the approval.
    if (planApproved && implementationReady && !working) return startWork(testsId);
    const person = personMessageOf(request);
    if (person !== undefined)
      return text(personNote(name, person, testerStatus(request, testsId, docsId)));
    if (message?.from === DEMO_IMPLEMENTER && message.payload === undefined) {
      return text(
        planApproved
          ? 'Thanks, already on it.'
          : `Thanks, ${DEMO_IMPLEMENTER}. I start once my plan is approved.`,
      );
    }
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
