// The model side of bench/team.mjs: one script per teammate for @muster/scripted-model (a TEST
// DOUBLE of the Messages API, zero latency, in process) and the bench's own Hold tool. Every
// message the bench or a teammate writes carries a tag `[msg:m<n>]`; the script notes the first
// request that carries each tag (wake, delivery and mid-turn latencies, lost messages) and
// answers from a per-teammate queue of steps, so a lead message delivered mid-turn or batched
// with others is still worked through in order.
import { performance } from 'node:perf_hooks';
import { z } from 'zod';

/** The tag put in every message the bench counts. */
export const tagOf = (id) => `[msg:${id}]`;
const TAG = /\[msg:(m\d+)\]/g;
const CLAIMED = /You took task #(\d+) from the team's task list/g;

/** The text blocks of the last user message (tool_result contents are not searched). */
function lastUserText(body) {
  const last = [...body.messages].reverse().find((message) => message.role === 'user');
  if (last === undefined) return '';
  if (typeof last.content === 'string') return last.content;
  return last.content
    .filter((block) => block.type === 'text')
    .map((block) => block.text)
    .join('\n');
}

/**
 * The ledger of one run: every counted message (`written`: id → { from, to, kind, writtenAt }),
 * the first request that carried it (`seen`: id → { at, by, midTurn }) and each task's claimers.
 */
export function createLedger() {
  let next = 0;
  return {
    written: new Map(),
    seen: new Map(),
    claims: new Map(),
    /** Registers a message before it is written (the recipient may see it before the write resolves). */
    register(from, to, kind) {
      next += 1;
      const id = `m${next}`;
      this.written.set(id, { from, to, kind, writtenAt: undefined });
      return id;
    },
    /** Marks a registered message as written (its send resolved). */
    wrote(id, at = performance.now()) {
      const record = this.written.get(id);
      if (record !== undefined) record.writtenAt = at;
    },
  };
}

/** What a teammate does for each kind of message it reads (its steps, one response each). */
function stepsFor(kind, teammate) {
  const look = [
    { type: 'tool_use', name: 'Read', input: { file_path: teammate.fileToRead() } },
    { type: 'tool_use', name: 'Glob', input: { pattern: 'src/**/*.ts' } },
  ];
  if (kind === 'work') return [look, teammate.sendSteps()];
  if (kind === 'hold') {
    return [
      look,
      [{ type: 'tool_use', name: 'Hold', input: { tag: 'lead' } }],
      teammate.sendSteps(),
    ];
  }
  return []; // ping, mid-turn, peer, report: read, nothing to do
}

/**
 * The script of one teammate. `teammate` gives its name, `fileToRead()`, `sendSteps()` (the
 * SendMessage calls of a work turn, tags registered) and receives `scriptMs`, `requests` and the
 * kinds of what started the current turn (`turnKinds`).
 */
export function teammateScript(teammate, ledger) {
  const queue = [];
  return (request, context) => {
    const begun = performance.now();
    // The double keeps every request it received, for tests; the bench does not read them, and
    // that memory belongs to the test double, not to the teammate whose memory is measured.
    context.requests.length = 0;
    teammate.requests += 1;
    const body = request.body;
    const last = body.messages.at(-1);
    const continuation =
      Array.isArray(last.content) && last.content.some((block) => block.type === 'tool_result');
    const text = lastUserText(body);
    if (!continuation) teammate.turnKinds = new Set();
    const note = (kind) => {
      if (!continuation) teammate.turnKinds.add(kind);
    };
    for (const match of text.matchAll(TAG)) {
      const id = match[1];
      if (ledger.seen.has(id)) continue;
      ledger.seen.set(id, { at: begun, by: teammate.name, midTurn: continuation });
      const record = ledger.written.get(id);
      if (record === undefined) continue;
      note(record.kind);
      queue.push(...stepsFor(record.kind, teammate));
    }
    for (const match of text.matchAll(CLAIMED)) {
      const taskId = match[1];
      const claimers = ledger.claims.get(taskId) ?? [];
      claimers.push(teammate.name);
      ledger.claims.set(taskId, claimers);
      note('task');
      queue.push([
        { type: 'tool_use', name: 'TaskUpdate', input: { taskId, status: 'completed' } },
      ]);
    }
    const step = queue.shift();
    const reply = { content: step ?? [{ type: 'text', text: 'Done.' }] };
    teammate.scriptMs += performance.now() - begun;
    return reply;
  };
}

/**
 * The Hold tool of `agentName` (bench only): stands for a tool that runs a while. `onHold` writes
 * the lead's mid-turn message and resolves once it is in the inbox; the tool then runs
 * `holdMs` more and ends, noting when, so the request carrying the message can be timed.
 */
export function createHoldTool({ agentName, onHold, holdMs, toolEnds }) {
  return {
    name: 'Hold',
    description: 'Runs a slow step (bench tool; returns after a short wait).',
    inputSchema: z.strictObject({ tag: z.string().describe('What the step is for.') }),
    isReadOnly: () => true,
    isConcurrencySafe: () => false,
    async call() {
      const id = await onHold(agentName);
      await new Promise((resolve) => setTimeout(resolve, holdMs));
      toolEnds.set(id, performance.now());
      return { content: 'step done' };
    },
  };
}
