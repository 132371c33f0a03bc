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

/** The last plan answer in a text: a line starting `[Plan Approved]` or `[Plan Rejected] …`. */
function fromText(value: string): PlanAnswer | undefined {
  let answer: PlanAnswer | undefined;
  const lines = value.split('\n');
  lines.forEach((line, position) => {
    const trimmed = line.trim();
    if (trimmed.startsWith(APPROVED)) answer = { approved: true };
    if (trimmed.startsWith(REJECTED)) {
      // The feedback runs to the next blank line (a message delivered with it follows one).
      const rest = [trimmed.slice(REJECTED.length)];
      for (const next of lines.slice(position + 1)) {
        if (next.trim() === '') break;
        rest.push(next);
      }
      const feedback = rest.join('\n').trim();
      answer = feedback === '' ? { approved: false } : { approved: false, feedback };
    }
  });
  return answer;
}

/** The plan answer delivered in the last user message, if it holds one. */
export function planAnswerOf(request: ScriptRequest): PlanAnswer | undefined {
  const message = teammateMessages(request)
    .filter(
      (entry) => entry.from === 'team-lead' && entry.payload?.type === 'plan_approval_response',
    )
    .at(-1);
  if (message?.payload !== undefined) {
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
    for (const part of value.split(/\n(?=\s*\[Plan (?:Approved|Rejected)\])/)) {
      const answer = fromText(part);
      if (answer !== undefined) answers.push(answer);
    }
  }
  return answers;
}
