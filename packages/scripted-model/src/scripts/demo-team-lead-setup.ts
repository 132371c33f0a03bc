/**
 * The demo lead's setup, read from the whole conversation so it can pick up wherever a turn was
 * interrupted: create the team, four tasks (each later one blocked by the first), then spawn
 * alice, bob (plan mode) and carol (Explore, read-only). A call whose result says it was
 * interrupted may or may not have run: a spawn is checked with a SendMessage to that name
 * before it is tried again, and a team that already exists is kept.
 */
import { reply, text } from '../script-helpers.js';
import {
  allToolResults,
  toolCalls,
  workingDirectoryOf,
  type ToolResult,
} from '../script-helpers-tellers.js';
import type { Reply, ReplyBlock, ScriptRequest } from '../types.js';
import {
  DEMO_IMPLEMENTER,
  DEMO_IMPLEMENTER_AGENT_TYPE,
  DEMO_REVIEWER,
  DEMO_TASKS,
  DEMO_TEAMMATES,
  DEMO_TEAM_NAME,
  DEMO_TESTER,
  implementerPrompt,
  reviewerPrompt,
  testerPrompt,
} from './demo-team-content.js';

/** The key of a demo task. */
export type DemoTaskKey = (typeof DEMO_TASKS)[number]['key'];

/** A tool_use block (the server generates its id). */
export function toolBlock(name: string, input: Record<string, unknown>): ReplyBlock {
  return { type: 'tool_use', name, input };
}

/** Whether a result says its call was interrupted (it may or may not have run). */
export function isInterrupted(result: ToolResult): boolean {
  return result.isError && /^\s*Interrupted\b/.test(result.content);
}

/** How long the lead waits before it checks on spawns that were interrupted. */
export const SPAWN_SETTLE_MS = 1_500;

/** What the lead sends a teammate whose spawn was interrupted, to learn whether it exists. */
export const SPAWN_CHECK_TEXT =
  'My turn was interrupted while I spawned you: if you read this, you are on the team. Carry on with your task.';

/** The ids of the demo tasks created so far, read from the TaskCreate results. */
export function createdTaskIds(request: ScriptRequest): Partial<Record<DemoTaskKey, string>> {
  const ids: Partial<Record<DemoTaskKey, string>> = {};
  for (const result of allToolResults(request)) {
    if (result.toolName !== 'TaskCreate' || result.isError) continue;
    const task = DEMO_TASKS.find((candidate) => candidate.subject === result.input.subject);
    const id = /#(\d+)/.exec(result.content)?.[1];
    if (task !== undefined && id !== undefined) ids[task.key] = id;
  }
  return ids;
}

/** The ids of all four demo tasks, or undefined while one is missing. */
export function demoTaskIds(request: ScriptRequest): Record<DemoTaskKey, string> | undefined {
  const ids = createdTaskIds(request);
  const { implement, tests, docs, review } = ids;
  return implement && tests && docs && review ? { implement, tests, docs, review } : undefined;
}

/** How muster's TeamCreate refuses a second team: the team the lead already leads. */
export const ALREADY_LEADS = /already lead(?:s)? team "([^"]+)"/;

/** The team name TeamCreate answered with (it may add a suffix), else the requested one. */
export function teamNameOf(request: ScriptRequest): string {
  for (const result of allToolResults(request)) {
    if (result.toolName !== 'TeamCreate') continue;
    const already = ALREADY_LEADS.exec(result.content)?.[1];
    if (already !== undefined) return already;
    if (result.isError) continue;
    try {
      const parsed = JSON.parse(result.content) as { team_name?: unknown };
      if (typeof parsed.team_name === 'string' && parsed.team_name !== '') return parsed.team_name;
    } catch {
      // Not JSON (another runtime's wording): keep the name the lead asked for.
    }
  }
  return DEMO_TEAM_NAME;
}

function teamCreated(request: ScriptRequest): boolean {
  return allToolResults(request).some(
    (result) =>
      result.toolName === 'TeamCreate' && (!result.isError || ALREADY_LEADS.test(result.content)),
  );
}

/** Task ids whose `addBlockedBy` update went through. */
function blockedTasks(request: ScriptRequest): Set<string> {
  return new Set(
    allToolResults(request)
      .filter(
        (result) =>
          result.toolName === 'TaskUpdate' &&
          !result.isError &&
          Array.isArray(result.input.addBlockedBy),
      )
      .map((result) => String(result.input.taskId)),
  );
}

type SpawnState = 'spawned' | 'unknown' | 'checking' | 'missing';

/**
 * Where each teammate's spawn stands: `spawned` (the spawn or a check message went through),
 * `unknown` (the spawn was interrupted, not checked yet), `checking` (a check is on its way) or
 * `missing` (never spawned, or the check found no such member).
 */
export function spawnStates(request: ScriptRequest): Record<string, SpawnState> {
  const states: Record<string, SpawnState> = {};
  for (const name of DEMO_TEAMMATES) states[name] = 'missing';
  const answered = new Set<string>();
  for (const result of allToolResults(request)) {
    answered.add(result.toolUseId);
    const name = String(result.input.name ?? result.input.recipient ?? '');
    if (!(name in states)) continue;
    if (result.toolName === 'Task') {
      if (!result.isError) states[name] = 'spawned';
      else if (isInterrupted(result)) states[name] = 'unknown';
    }
    if (result.toolName === 'SendMessage' && result.input.content === SPAWN_CHECK_TEXT) {
      if (!result.isError) states[name] = 'spawned';
      else if (/No member named/i.test(result.content)) states[name] = 'missing';
    }
  }
  for (const call of toolCalls(request)) {
    const name = String(call.input.recipient ?? '');
    if (
      call.name === 'SendMessage' &&
      call.input.content === SPAWN_CHECK_TEXT &&
      !answered.has(call.id)
    )
      if (states[name] === 'unknown') states[name] = 'checking';
  }
  return states;
}

/** A Task call that failed for a reason other than an interruption (the lead stops then). */
export function failedSpawn(request: ScriptRequest): ToolResult | undefined {
  return allToolResults(request).find(
    (result) => result.toolName === 'Task' && result.isError && !isInterrupted(result),
  );
}

/**
 * Whether the spawn tool offers the repository's `implementer` agent type (its description
 * lists `- implementer: …`): that type works in a git worktree of its own.
 */
export function offersImplementerType(request: ScriptRequest): boolean {
  const body = request.body as { tools?: unknown } | undefined;
  const tools = Array.isArray(body?.tools)
    ? (body.tools as { name?: unknown; description?: unknown }[])
    : [];
  return tools.some(
    (tool) =>
      (tool?.name === 'Task' || tool?.name === 'Agent') &&
      typeof tool.description === 'string' &&
      tool.description.includes(`- ${DEMO_IMPLEMENTER_AGENT_TYPE}:`),
  );
}

function spawnBlock(name: string, ids: Record<DemoTaskKey, string>, request: ScriptRequest) {
  const team = teamNameOf(request);
  const directory = workingDirectoryOf(request);
  if (name === DEMO_IMPLEMENTER) {
    const isolated = offersImplementerType(request);
    return toolBlock('Task', {
      description: 'Implement slugify',
      prompt: implementerPrompt(ids.implement, directory, isolated),
      subagent_type: isolated ? DEMO_IMPLEMENTER_AGENT_TYPE : 'general-purpose',
      name,
      team_name: team,
    });
  }
  if (name === DEMO_TESTER) {
    return toolBlock('Task', {
      description: 'Test and document slugify',
      prompt: testerPrompt(ids.tests, ids.docs, ids.implement, directory),
      subagent_type: 'general-purpose',
      name,
      team_name: team,
      mode: 'plan',
    });
  }
  return toolBlock('Task', {
    description: 'Review slugify',
    prompt: reviewerPrompt(ids.review, ids.implement, directory),
    subagent_type: 'Explore',
    name,
    team_name: team,
  });
}

/** Whether the setup is done: team, tasks, dependencies and three spawned teammates. */
export function setupDone(request: ScriptRequest): boolean {
  return setupReply(request) === undefined;
}

/**
 * The lead's next setup step, or undefined once the whole team is set up. `note` opens the
 * reply (after an interruption, say so).
 */
export function setupReply(request: ScriptRequest, note?: string): Reply | undefined {
  const open = (words: string) => (note === undefined ? words : `${note} ${words}`);
  if (!teamCreated(request)) {
    return reply({
      content: [
        open(
          `I will run this as a small team: ${DEMO_IMPLEMENTER} implements slugify(), ${DEMO_TESTER} writes the tests and docs, and ${DEMO_REVIEWER} reviews the code.`,
        ),
        toolBlock('TeamCreate', {
          team_name: DEMO_TEAM_NAME,
          description: 'Add slugify() with tests and docs',
        }),
      ],
    });
  }
  const created = createdTaskIds(request);
  const missing = DEMO_TASKS.filter((task) => created[task.key] === undefined);
  const unreadable = allToolResults(request).some(
    (result) =>
      result.toolName === 'TaskCreate' &&
      !result.isError &&
      missing.some((task) => task.subject === result.input.subject),
  );
  if (unreadable)
    return text(
      'demo-team lead: I could not read the four task ids from the TaskCreate results, so I stop here.',
    );
  if (missing.length > 0) {
    return reply({
      content: [
        open(
          missing.length === DEMO_TASKS.length
            ? 'Team ready. I will split the job into four tasks: the implementation first, then tests, docs and a review.'
            : `Creating the tasks still missing: ${missing.map((task) => task.subject).join(', ')}.`,
        ),
        ...missing.map((task) =>
          toolBlock('TaskCreate', {
            subject: task.subject,
            description: task.description,
            activeForm: task.activeForm,
          }),
        ),
      ],
    });
  }
  const ids = demoTaskIds(request) as Record<DemoTaskKey, string>;
  const blocked = blockedTasks(request);
  const waiting = [ids.tests, ids.docs, ids.review].filter((id) => !blocked.has(id));
  if (waiting.length > 0) {
    return reply({
      content: [
        open(
          `${waiting.map((id) => `#${id}`).join(', ')} wait for the implementation (#${ids.implement}).`,
        ),
        ...waiting.map((id) =>
          toolBlock('TaskUpdate', { taskId: id, addBlockedBy: [ids.implement] }),
        ),
      ],
    });
  }
  const states = spawnStates(request);
  const toCheck = DEMO_TEAMMATES.filter((name) => states[name] === 'unknown');
  const toSpawn = DEMO_TEAMMATES.filter((name) => states[name] === 'missing');
  if (toCheck.length === 0 && toSpawn.length === 0) {
    return DEMO_TEAMMATES.some((name) => states[name] === 'checking')
      ? text(open('Waiting to hear whether every teammate was spawned.'))
      : undefined;
  }
  const first = toSpawn.length === DEMO_TEAMMATES.length;
  // An interrupted spawn may still be finishing in the background: give it a moment before
  // the check, so that it is not taken for missing and spawned twice.
  const settle =
    toCheck.length > 0
      ? { fault: { kind: 'pings-only' as const, durationMs: SPAWN_SETTLE_MS } }
      : {};
  return reply({
    ...settle,
    content: [
      open(
        first
          ? `Spawning ${DEMO_IMPLEMENTER} for the implementation, ${DEMO_TESTER} (plan mode) for tests and docs, and ${DEMO_REVIEWER} (read-only Explore agent) for the review.`
          : [
              toSpawn.length > 0 ? `Spawning ${toSpawn.join(' and ')}.` : '',
              toCheck.length > 0
                ? `Checking whether ${toCheck.join(' and ')} made it onto the team.`
                : '',
            ]
              .filter((part) => part !== '')
              .join(' '),
      ),
      ...toSpawn.map((name) => spawnBlock(name, ids, request)),
      ...toCheck.map((name) =>
        toolBlock('SendMessage', {
          type: 'message',
          recipient: name,
          content: SPAWN_CHECK_TEXT,
          summary: 'Checking you were spawned',
        }),
      ),
    ],
  });
}
