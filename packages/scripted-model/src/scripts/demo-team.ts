/**
 * `demo-team`: the offline demo's script. It plays a believable lead and three teammates adding
 * `slugify(text)` with tests, docs and a review to a throwaway repository (DEMO_TEAM_REPOSITORY), using
 * only the tool names and input shapes Claude Code 2.1.45 offers. Every reply is decided from
 * the request alone, so the script works the same over any number of runs and processes.
 * Anything it does not recognise gets a clear text reply, never a crash.
 */
import { text } from '../script-helpers.js';
import {
  agentNameOf,
  isLeadRequest,
  messagesOf,
  spawnPromptOf,
  toolNames,
} from '../script-helpers-tellers.js';
import type { Reply, Script, ScriptRequest } from '../types.js';
import {
  DEMO_IMPLEMENTER,
  DEMO_REVIEWER,
  DEMO_SCRIPT_LABEL,
  DEMO_TESTER,
} from './demo-team-content.js';
import { leadReply } from './demo-team-lead.js';
import { implementerReply } from './demo-team-implementer.js';
import { reviewerReply } from './demo-team-reviewer.js';
import { testerReply } from './demo-team-tester.js';

/** Which part of the demo a request belongs to. */
export type DemoRole = 'lead' | 'implementer' | 'tester' | 'reviewer' | 'side-request' | 'unknown';

/** Tells which demo part a request belongs to, from its tools and first user message. */
export function demoRoleOf(request: ScriptRequest): DemoRole {
  if (toolNames(request).length === 0) return 'side-request';
  if (isLeadRequest(request)) return 'lead';
  if (spawnPromptOf(request) === undefined) return 'unknown';
  const name = agentNameOf(request);
  if (name === DEMO_IMPLEMENTER) return 'implementer';
  if (name === DEMO_TESTER) return 'tester';
  if (name === DEMO_REVIEWER) return 'reviewer';
  return 'unknown';
}

function decide(request: ScriptRequest): Reply {
  switch (demoRoleOf(request)) {
    case 'side-request':
      // Claude Code's small side requests (titles, topic checks) offer no tools: a short text fits them.
      return text('Add slugify() with tests and docs');
    case 'lead':
      return leadReply(request);
    case 'implementer':
      return implementerReply(request);
    case 'tester':
      return testerReply(request);
    case 'reviewer':
      return reviewerReply(request);
    default: {
      const name = agentNameOf(request);
      return text(
        name === undefined
          ? 'demo-team: I cannot tell which agent this is (not a lead offered Task and TeamCreate, and no spawn prompt from team-lead), so I have nothing scripted to say.'
          : `demo-team: there is no part for an agent named "${name}" in this script (it plays team-lead, ${DEMO_IMPLEMENTER}, ${DEMO_TESTER} and ${DEMO_REVIEWER}).`,
      );
    }
  }
}

/**
 * An agent's first reply opens with the scripted-demo label, so every conversation (the lead's,
 * each teammate's transcript or pane) says it is a script, not a model.
 */
function labelled(request: ScriptRequest, answer: Reply): Reply {
  if (messagesOf(request).some((message) => message.role === 'assistant')) return answer;
  const position = answer.content.findIndex((block) => block.type === 'text');
  if (position === -1)
    return { ...answer, content: [{ type: 'text', text: DEMO_SCRIPT_LABEL }, ...answer.content] };
  const block = answer.content[position] as { type: 'text'; text: string };
  if (block.text.startsWith(DEMO_SCRIPT_LABEL)) return answer;
  const content = [...answer.content];
  content[position] = { ...block, text: `${DEMO_SCRIPT_LABEL} ${block.text}` };
  return { ...answer, content };
}

/**
 * The `demo-team` Script: lead, alice, bob and carol. Never throws; an unexpected situation
 * gets a text reply.
 */
export const demoTeamScript: Script = (request) => {
  try {
    const role = demoRoleOf(request);
    const answer = decide(request);
    return role === 'side-request' ? answer : labelled(request, answer);
  } catch (error) {
    return text(
      `demo-team: could not decide a reply (${error instanceof Error ? error.message : String(error)}).`,
    );
  }
};

export default demoTeamScript;
