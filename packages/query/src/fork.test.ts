// Forks at the scripted model (a TEST DOUBLE of the Messages API) with its prompt-cache
// simulation: byte identity with the parent's last request (R11), siblings identical up to the
// directive, the staggered fan-out's cache share and the double's all-at-once zero (R12), and
// no fork inside a fork (R13).
import type Anthropic from '@anthropic-ai/sdk';
import { text, type Reply, type ScriptRequest } from '@muster/scripted-model';
import { describe, expect, it } from 'vitest';
import type { Agent } from './agent-types.js';
import { collect, eventsOf, recordingTool, withoutMarkers } from './agent-test-support.js';
import {
  FORK_PLACEHOLDER_RESULT,
  forkFirstMessage,
  isForkDirectiveBlock,
  isInForkChild,
  type ForkSource,
} from './fork.js';
import { startForks } from './fork-start.js';
import {
  createChild,
  forkTool,
  isForkRequest,
  openChildModel,
  runForkingParent,
} from './fork-test-support.js';
import { QueryError } from './query-error.js';
import { readTranscript } from './transcript-reader.js';
import { createAgent } from './agent.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

type Body = Anthropic.MessageCreateParams & Record<string, unknown>;

const DIRECTIVES = ['Refactor module A.', 'Refactor module B.', 'Refactor module C.'];

function stripped(value: unknown): string {
  return JSON.stringify(withoutMarkers(value));
}

async function finish(forks: Array<{ agent: Agent; turn: { result: Promise<unknown> } }>) {
  await Promise.all(forks.map((fork) => fork.turn.result));
  await Promise.all(forks.map((fork) => fork.agent.close()));
}

describe('fork children (R11–R13)', () => {
  it('sends the parent’s last request byte for byte (markers stripped) up to each child’s directive (R11)', async () => {
    const parent = await runForkingParent();
    try {
      expect(parent.sources).toHaveLength(1);
      const source = parent.sources[0]!;
      expect(Object.isFrozen(source.messages.at(-1))).toBe(true);
      const parentRequests = parent.scriptedFetch.requests().map((request) => request.body as Body);
      // The request whose answer made the fork, and the parent's next one (which carries that answer).
      const last = parentRequests[1]!;
      const next = parentRequests[2]!;
      const k = last.messages.length;

      const model = openChildModel();
      const forks = await startForks(source, DIRECTIVES, (fork, index) =>
        createChild(model, fork, index),
      );
      await finish(forks);
      const childBodies = model.scriptedFetch.requests().map((request) => request.body as Body);
      expect(childBodies).toHaveLength(DIRECTIVES.length);
      let identical = 0;
      for (const body of childBodies) {
        expect(body.model).toBe(last.model);
        expect(stripped(body.tools)).toBe(stripped(last.tools));
        expect(stripped(body.system)).toBe(stripped(last.system));
        expect(stripped(body.messages.slice(0, k))).toBe(stripped(last.messages));
        expect(stripped(body.messages[k])).toBe(stripped(next.messages[k]));
        for (const field of ['tool_choice', 'thinking', 'max_tokens', 'output_config', 'speed']) {
          expect(JSON.stringify(body[field]), field).toBe(JSON.stringify(last[field]));
        }
        // Then one user message: a placeholder per call, in call order, then the directive.
        expect(body.messages).toHaveLength(k + 2);
        const blocks = body.messages[k + 1]!.content as unknown as Array<Record<string, unknown>>;
        expect(blocks.map((block) => [block.type, block.tool_use_id, block.content])).toEqual([
          ...source.toolUseIds.map((id) => ['tool_result', id, FORK_PLACEHOLDER_RESULT]),
          ['text', undefined, undefined],
        ]);
        expect(source.toolUseIds).toHaveLength(2);
        // The explicit breakpoint is on the last placeholder, never on the directive (R12).
        expect(blocks.at(-2)!.cache_control).toEqual({ type: 'ephemeral' });
        expect(blocks.at(-1)!.cache_control).toBeUndefined();
        identical += 1;
      }
      console.log(`fork byte identity: ${identical}/${childBodies.length} children`);
      // Siblings: identical up to the directive, which differs.
      const prefixes = childBodies.map((body) => {
        const copy = withoutMarkers(body.messages);
        const directive = (copy.at(-1)!.content as Array<{ text: string }>).pop()!;
        return {
          prefix: JSON.stringify({ ...body, messages: copy }, (key, value: unknown) =>
            key === 'cache_control' ? undefined : value,
          ),
          directive: directive.text,
        };
      });
      expect(new Set(prefixes.map((entry) => entry.prefix)).size).toBe(1);
      expect(new Set(prefixes.map((entry) => entry.directive)).size).toBe(DIRECTIVES.length);
      DIRECTIVES.forEach((directive, index) =>
        expect(prefixes[index]!.directive).toContain(directive),
      );
      // The double agrees: one prefix hash at the shared breakpoint for every sibling.
      const sharedHashes = model.log.records().map((record) => record.breakpointHashes.at(-1));
      expect(new Set(sharedHashes).size).toBe(1);
    } finally {
      await parent.agent.close();
    }
  });

  it('carries a thinking block of the forking message unchanged (signature included)', async () => {
    const parent = await runForkingParent({ thinking: true });
    try {
      const source = parent.sources[0]!;
      const next = parent.scriptedFetch.requests()[2]!.body as Body;
      const k = next.messages.length - 2;
      const model = openChildModel();
      const forks = await startForks(source, ['Part one.', 'Part two.'], (fork, index) =>
        createChild(model, fork, index),
      );
      await finish(forks);
      const forkingMessage = next.messages[k]!.content as unknown as Array<Record<string, unknown>>;
      expect(forkingMessage[0]!.type).toBe('thinking');
      expect(typeof forkingMessage[0]!.signature).toBe('string');
      for (const request of model.scriptedFetch.requests()) {
        expect(stripped((request.body as Body).messages[k])).toBe(stripped(next.messages[k]));
      }
    } finally {
      await parent.agent.close();
    }
  });

  it('staggered fan-out: children 2..N read ≥ 0.95 of the shared prefix; sent all at once the double gives 0 (R12)', async () => {
    const parent = await runForkingParent();
    try {
      const source = parent.sources[0]!;
      for (const count of [2, 4]) {
        const directives = Array.from({ length: count }, (_value, index) => `Part ${index + 1}.`);
        const staggered = openChildModel();
        const forks = await startForks(source, directives, (fork, index) =>
          createChild(staggered, fork, index),
        );
        await finish(forks);
        const records = staggered.log.records();
        expect(records).toHaveLength(count);
        const first = records[0]!.usage;
        const shared = first.cache_read_input_tokens + first.cache_creation_input_tokens;
        expect(shared).toBeGreaterThan(1024);
        for (const record of records.slice(1)) {
          console.log(
            `fork N=${count}: child cache_read ${record.usage.cache_read_input_tokens} of shared prefix ${shared} (${(record.usage.cache_read_input_tokens / shared).toFixed(3)})`,
          );
          expect(record.usage.cache_read_input_tokens).toBeGreaterThanOrEqual(0.95 * shared);
        }

        // The same children sent at once: no entry is readable yet, so nobody reads anything.
        const together = openChildModel({ barrier: count });
        const agents = directives.map((directive, index) =>
          createChild(together, { source, directive }, index),
        );
        const turns = agents.map((agent) => agent.send());
        await Promise.all(turns.map((turn) => turn.result));
        await Promise.all(agents.map((agent) => agent.close()));
        const reads = together.log.records().map((record) => record.usage.cache_read_input_tokens);
        expect(reads).toEqual(directives.map(() => 0));
      }
    } finally {
      await parent.agent.close();
    }
  });

  it('waits for child 1’s response to start before sending the others', async () => {
    const parent = await runForkingParent();
    const order: string[] = [];
    let releaseFirst: () => void = () => {};
    const firstHeld = new Promise<void>((resolve) => {
      releaseFirst = resolve;
    });
    const model = openChildModel({
      script: async (request: ScriptRequest): Promise<Reply> => {
        order.push(`request ${request.index}`);
        if (request.index === 0) await firstHeld;
        return text('done');
      },
    });
    try {
      const started = startForks(parent.sources[0]!, DIRECTIVES, (fork, index) => {
        order.push(`create ${index}`);
        if (index === 0) setTimeout(() => releaseFirst(), 200);
        return createChild(model, fork, index);
      });
      const forks = await started;
      await finish(forks);
      expect(order.slice(0, 2)).toEqual(['create 0', 'request 0']);
      expect(order.indexOf('create 1')).toBeGreaterThan(order.indexOf('request 0'));
      expect(model.log.records()).toHaveLength(3);
    } finally {
      await parent.agent.close();
    }
  });

  it('runs only the child’s own tools; a parent tool it may not run is an is_error result (tools array unchanged)', async () => {
    const parent = await runForkingParent();
    const read = recordingTool('Read');
    const model = openChildModel({
      script: (request): Reply => {
        if (!isForkRequest(request.body)) return text('?');
        const messages = (request.body as Body).messages;
        if (messages.length === parent.sources[0]!.messages.length + 1) {
          return {
            content: [
              { type: 'tool_use', name: 'Grep', input: { tag: 'not-mine' } },
              { type: 'tool_use', name: 'Read', input: { tag: 'mine' } },
            ],
          };
        }
        return text('Done.');
      },
    });
    try {
      const child = createChild(
        model,
        { source: parent.sources[0]!, directive: 'Look around.' },
        0,
        [read],
      );
      const { events, result } = await collect(child.send());
      await child.close();
      expect(result.reason).toBe('completed');
      const ends = eventsOf(events, 'tool_call_end');
      expect(ends.map((end) => [end.name, end.isError])).toEqual([
        ['Grep', true],
        ['Read', false],
      ]);
      expect(ends[0]!.resultText).toContain('Grep is not available to this fork');
      expect(read.calls).toHaveLength(1);
      const bodies = model.scriptedFetch.requests().map((request) => request.body as Body);
      expect((bodies[1]!.tools as Array<{ name: string }>).map((tool) => tool.name)).toEqual([
        'Fork',
        'Read',
        'Grep',
      ]);
    } finally {
      await parent.agent.close();
    }
  });

  it('refuses a fork inside a fork child: the Fork tool gets NESTED_FORK, and so do createAgent and startForks (R13)', async () => {
    const parent = await runForkingParent();
    const innerSources: ForkSource[] = [];
    const innerFork = forkTool(innerSources);
    const model = openChildModel({
      script: (request): Reply => {
        const messages = (request.body as Body).messages;
        if (messages.length === parent.sources[0]!.messages.length + 1) {
          return { content: [{ type: 'tool_use', name: 'Fork', input: { tag: 'again' } }] };
        }
        return text('I did it myself.');
      },
    });
    try {
      const source = parent.sources[0]!;
      const child = createChild(model, { source, directive: 'Split further.' }, 0, [innerFork]);
      const { events } = await collect(child.send());
      const end = eventsOf(events, 'tool_call_end')[0]!;
      expect(end.isError).toBe(true);
      expect(end.resultText).toContain('cannot fork again');
      expect(innerSources).toHaveLength(0);
      expect((innerFork.errors[0] as QueryError).code).toBe('NESTED_FORK');
      expect(isInForkChild(child.messages())).toBe(true);
      expect(isInForkChild(source.messages)).toBe(false);

      // A source made by hand from a child's conversation is refused too.
      const childMessages = child.messages();
      const handMade: ForkSource = {
        ...source,
        messages: [
          ...childMessages,
          {
            role: 'assistant',
            content: [{ type: 'tool_use', id: 'toolu_x', name: 'Fork', input: {} }],
          },
        ],
        toolUseIds: ['toolu_x'],
      };
      expect(() => createChild(model, { source: handMade, directive: 'Again.' }, 1)).toThrow(
        expect.objectContaining({ code: 'NESTED_FORK' }),
      );
      await expect(
        startForks(handMade, ['Again.'], (fork, index) => createChild(model, fork, index)),
      ).rejects.toMatchObject({ code: 'NESTED_FORK' });
      await child.close();
    } finally {
      await parent.agent.close();
    }
  });

  it('refuses bad fork options with what to pass', async () => {
    const parent = await runForkingParent();
    const model = openChildModel();
    const source = parent.sources[0]!;
    const base = {
      client: model.client,
      identity: { name: 'fork-x', id: 'fork-x@t' },
      tools: [],
      cwd: '/tmp',
      roots: () => ({ read: ['/tmp'], write: ['/tmp'] }),
      authorize: async () => ({ behavior: 'allow' as const }),
    };
    const { createAgent } = await import('./agent.js');
    try {
      const cases: Array<[Record<string, unknown>, string, string]> = [
        [{ system: 'mine' }, 'INVALID_OPTIONS', 'leave system out'],
        [{ model: 'claude-other-model' }, 'INVALID_OPTIONS', 'parent’s model'],
        [{ tools: [recordingTool('Bash')] }, 'INVALID_OPTIONS', 'not one of the parent'],
        [{ messages: [] }, 'INVALID_OPTIONS', 'leave messages out'],
        [{ fork: { source, directive: '  ' } }, 'INVALID_OPTIONS', 'directive'],
        [
          { fork: { source: { ...source, toolUseIds: [] }, directive: 'x' } },
          'FORK_UNAVAILABLE',
          'forkSource()',
        ],
        [{ fork: { source: { model: 'x' }, directive: 'x' } }, 'FORK_UNAVAILABLE', 'forkSource()'],
      ];
      for (const [extra, code, says] of cases) {
        let thrown: unknown;
        try {
          createAgent({ ...base, fork: { source, directive: 'Do it.' }, ...extra } as never);
        } catch (error) {
          thrown = error;
        }
        expect(thrown, JSON.stringify(Object.keys(extra))).toBeInstanceOf(QueryError);
        expect((thrown as QueryError).code).toBe(code);
        expect((thrown as QueryError).message).toContain(says);
      }
      // The same model named by the parent is fine.
      const same = createAgent({
        ...base,
        model: source.model,
        fork: { source, directive: 'Do it.' },
      });
      await same.close();
      // A normal agent cannot send() without content.
      expect(() => parent.agent.send()).toThrow(
        expect.objectContaining({ code: 'INVALID_OPTIONS' }),
      );
      await expect(
        startForks(source, [], () => {
          throw new Error('never');
        }),
      ).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
    } finally {
      await parent.agent.close();
    }
  });

  it('writes the inherited conversation and the directive at the top of a fork child’s transcript', async () => {
    const parent = await runForkingParent();
    const folder = mkdtempSync(join(tmpdir(), 'muster-fork-transcript-'));
    const model = openChildModel();
    try {
      const source = parent.sources[0]!;
      const transcriptPath = join(folder, 'fork-1.jsonl');
      const child = createAgent({
        client: model.client,
        identity: { name: 'fork-1', id: 'fork-1@test-team' },
        tools: [],
        cwd: '/tmp',
        roots: () => ({ read: ['/tmp'], write: ['/tmp'] }),
        authorize: async () => ({ behavior: 'allow' }),
        transcriptPath,
        fork: { source, directive: 'Summarise.' },
      });
      const { result } = await collect(child.send());
      await child.close();
      expect(result.reason).toBe('completed');
      const { messages } = readTranscript(transcriptPath);
      expect(messages).toHaveLength(source.messages.length + 2);
      expect(JSON.stringify(messages.slice(0, source.messages.length))).toBe(
        JSON.stringify(source.messages),
      );
      expect(isInForkChild(messages)).toBe(true);
      expect(messages.at(-1)!.role).toBe('assistant');
    } finally {
      rmSync(folder, { recursive: true, force: true });
      await parent.agent.close();
    }
  });

  it('builds the first message from the source alone (helpers)', async () => {
    const parent = await runForkingParent();
    try {
      const source = parent.sources[0]!;
      const message = forkFirstMessage({
        source,
        directive: 'Check the docs.',
        notice: 'You work in /wt: translate paths.',
      });
      const blocks = message.content as unknown as Array<Record<string, unknown>>;
      expect(blocks).toHaveLength(3);
      const directive = blocks[2]!;
      expect(isForkDirectiveBlock(directive)).toBe(true);
      expect(isForkDirectiveBlock(blocks[0])).toBe(false);
      expect(String(directive.text)).toMatch(
        /^<fork-boilerplate>\n[\s\S]*You work in \/wt[\s\S]*Check the docs\.\n<\/fork-boilerplate>$/,
      );
      expect(isInForkChild([message])).toBe(true);
    } finally {
      await parent.agent.close();
    }
  });
});
