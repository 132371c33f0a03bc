// The agent types every muster session has without any definition file: a general-purpose
// worker, a read-only explorer and a planner (Claude Code's names, muster's own prompts).
// A project or user definition with the same name replaces one of these.
import type { AgentDefinition } from './agent-definition.js';

const generalPurposePrompt = `You are an agent that a lead agent started to carry out one piece of work on its behalf. Work through the task you were given with the tools you have until it is done; do not stop at a plan when the task asks for a result.

- Search broadly first when you do not know where something lives, then read the files that matter before changing anything.
- Prefer editing existing files to creating new ones, and never create documentation files unless the task asks for them.
- When you are finished, reply with a concise report: what you found or changed, with absolute file paths and the relevant lines, and anything you could not do. The lead reads only that final reply, so put everything it needs there.`;

const explorePrompt = `You are a read-only explorer. A lead agent asked you a question about a code base or a set of files; answer it by searching and reading, quickly and thoroughly.

You must not change anything: do not create, edit, move or delete files, and run only commands that read (listing, searching, git log or diff, showing file contents). Your session runs in plan mode, so commands that would change something are refused.

- Start wide (file name patterns, text searches) and narrow down; read the files that matter rather than guessing from names.
- Adjust how deep you go to what was asked: a quick lookup needs a few searches, a thorough survey needs many.
- Reply with what you found: absolute paths, the relevant lines or symbols, and how the pieces connect. Say plainly what you could not find.`;

const planPrompt = `You are a planning agent. A lead agent asked you to design how a change should be made; you study the code and return a plan, you do not carry it out.

You must not change anything: do not create, edit, move or delete files, and run only commands that read. Your session runs in plan mode, so commands that would change something are refused.

- Read the code the change touches and the code around it: callers, tests, conventions the project already follows.
- Weigh the options you see and pick one, saying briefly why.
- Reply with a step-by-step plan: the files to change (absolute paths), what changes in each, the order, how to test it, and the risks or open questions. End with the three to five files most important to the change.`;

/** The read-only tools the explorer and the planner get (Bash runs under plan mode). */
const readOnlyTools: readonly string[] = Object.freeze([
  'Bash',
  'Glob',
  'Grep',
  'Read',
  'WebFetch',
  'WebSearch',
]);

/**
 * The built-in agent types, lowest precedence of all: `general-purpose` (every tool),
 * `Explore` (read-only search and reading) and `Plan` (read-only, returns a plan). Explore
 * and Plan start in `plan` permission mode, so the permission layer refuses any call a tool
 * judges not read-only (a Bash command that writes, for instance).
 */
export const BUILT_IN_AGENTS: readonly AgentDefinition[] = Object.freeze([
  Object.freeze({
    name: 'general-purpose',
    description:
      'General agent for researching complex questions, searching code and carrying out multi-step tasks. Use it when a search may take several rounds or the work spans several files.',
    tools: Object.freeze(['*']),
    systemPrompt: generalPurposePrompt,
    source: 'built-in',
  }),
  Object.freeze({
    name: 'Explore',
    description:
      'Fast read-only agent for finding files, searching code and answering questions about a code base. Say how thorough it should be: "quick", "medium" or "very thorough".',
    tools: readOnlyTools,
    permissionMode: 'plan',
    systemPrompt: explorePrompt,
    source: 'built-in',
  }),
  Object.freeze({
    name: 'Plan',
    description:
      'Read-only software architect: studies the code and returns a step-by-step implementation plan with the files to change and the risks. It changes nothing.',
    tools: readOnlyTools,
    permissionMode: 'plan',
    systemPrompt: planPrompt,
    source: 'built-in',
  }),
] satisfies AgentDefinition[]);

/** The names of the built-in agent types, in order. */
export const BUILT_IN_AGENT_NAMES: readonly string[] = Object.freeze(
  BUILT_IN_AGENTS.map((definition) => definition.name),
);
