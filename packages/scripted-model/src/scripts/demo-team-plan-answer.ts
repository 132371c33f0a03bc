/**
 * The lead's answer to bob's plan, as either runtime delivers it: Claude Code 2.1.45 as a
 * `<teammate-message>` carrying a `plan_approval_response`, muster as plain text starting
 * `[Plan Approved]` or `[Plan Rejected] <feedback>`.
 */
import { allTeammateMessages, messagesOf, teammateMessages } from '../script-helpers-tellers.js';
import type { ScriptRequest } from '../types.js';

/** A plan answer: approved, or rejected with the lead's feedback. */
export interface PlanAnswer {
  approved: boolean;
  feedback?: string;
}

const APPROVED = '[Plan Approved]';
const REJECTED = '[Plan Rejected]';

function userTexts(request: ScriptRequest): string[] {
  return messagesOf(request)
    .filter((message) => message.role === 'user')
    .map((message) =>
      message.content
        .map((block) => (block.type === 'text' && typeof block.text === 'string' ? block.text : ''))
        .join('\n'),
    );
}

function fromText(value: string): PlanAnswer | undefined {
  const trimmed = value.trim();
  if (trimmed.startsWith(APPROVED)) return { approved: true };
  if (trimmed.startsWith(REJECTED)) {
    const feedback = trimmed.slice(REJECTED.length).trim();
    return feedback === '' ? { approved: false } : { approved: false, feedback };
  }
  return undefined;
}

/** The plan answer delivered in the last user message, if it holds one. */
export function planAnswerOf(request: ScriptRequest): PlanAnswer | undefined {
  const message = teammateMessages(request).at(-1);
  if (message?.from === 'team-lead' && message.payload?.type === 'plan_approval_response') {
    const { approved, feedback } = message.payload;
    return typeof feedback === 'string'
      ? { approved: approved === true, feedback }
      : { approved: approved === true };
  }
  return fromText(userTexts(request).at(-1) ?? '');
}

/** Every plan answer delivered so far (protocol messages first, then text answers). */
export function allPlanAnswers(request: ScriptRequest): PlanAnswer[] {
  const answers: PlanAnswer[] = [];
  for (const message of allTeammateMessages(request)) {
    if (message.from === 'team-lead' && message.payload?.type === 'plan_approval_response')
      answers.push({ approved: message.payload.approved === true });
  }
  for (const value of userTexts(request)) {
    const answer = fromText(value);
    if (answer !== undefined) answers.push(answer);
  }
  return answers;
}
