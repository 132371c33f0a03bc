// The spawn tool at the scripted model (a TEST DOUBLE of the Messages API) through the real
// SDK: Claude Code's schemas, routing, the synchronous subagent with its hooks, and forks.
import { readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type Anthropic from '@anthropic-ai/sdk';
import type { AnyTool, ToolContext } from '@muster/query';
import { makeTempDirectory } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BUILT_IN_AGENTS } from './built-in-agents.js';
import { loadHooks } from './hooks.js';
import {
  AGENT_INPUT_JSON_SCHEMA,
  AgentInputSchema,
  TASK_INPUT_JSON_SCHEMA,
  TASK_OUTPUT_INPUT_JSON_SCHEMA,
  TASK_STOP_INPUT_JSON_SCHEMA,
  TaskInputSchema,
} from './spawn-tool-schemas.js';
import { chooseSpawnPath, createSpawnTool } from './spawn-tool.js';
import {
  afterToolResult,
  allowAll,
  isParentRequest,
  lastText,
  openSpawnParent,
  REVIEWER,
  say,
  toolEnd,
  use,
} from './spawn-tool-test-support.js';

function fixture(name: string): Record<string, unknown> {
  const { $schema: _dropped, ...schema } = JSON.parse(
    readFileSync(new URL(`../fixtures/${name}.input_schema.json`, import.meta.url), 'utf8'),
  ) as Record<string, unknown>;
  return schema;
}

/** A tool the children call: records which agent called it. */
function probeTool(calls: string[]): AnyTool {
  return {
    name: 'Probe',
    description: 'Test tool: records the calling agent.',
    inputSchema: z.strictObject({ tag: z.string() }),
    isReadOnly: () => true,
    isConcurrencySafe: () => true,
    async call(input: { tag: string }, context: ToolContext) {
      calls.push(`${context.agent.name}:${input.tag}`);
      return { content: `probe ${input.tag} ok` };
    },
  };
}

describe('spawn tool schemas', () => {
  it('sends Claude Code’s exact input schemas: Task (2.1.45), Agent (2.1.330), TaskOutput and TaskStop (2.1.45)', () => {
    expect(TASK_INPUT_JSON_SCHEMA).toEqual(fixture('claude-code-2.1.45-Task'));
    expect(AGENT_INPUT_JSON_SCHEMA).toEqual(fixture('claude-code-2.1.330-Agent'));
    expect(TASK_OUTPUT_INPUT_JSON_SCHEMA).toEqual(fixture('claude-code-2.1.45-TaskOutput'));
    expect(TASK_STOP_INPUT_JSON_SCHEMA).toEqual(fixture('claude-code-2.1.45-TaskStop'));
  });

  it('checks inputs as those schemas do', () => {
    const base = { description: 'd', prompt: 'p' };
    expect(TaskInputSchema.safeParse(base).success).toBe(false); // subagent_type required
    expect(TaskInputSchema.safeParse({ ...base, subagent_type: 'x', max_turns: 0 }).success).toBe(
      false,
    );
    expect(TaskInputSchema.safeParse({ ...base, subagent_type: 'x', extra: 1 }).success).toBe(
      false,
    );
    expect(AgentInputSchema.safeParse(base).success).toBe(true);
    expect(AgentInputSchema.safeParse({ ...base, name: '-bad' }).success).toBe(false);
    expect(AgentInputSchema.safeParse({ ...base, model: 'fable' }).success).toBe(true);
    // protocol's extra rules: no blank prompt, no reserved teammate name.
    expect(AgentInputSchema.safeParse({ description: 'd', prompt: ' ' }).success).toBe(false);
    expect(AgentInputSchema.safeParse({ ...base, name: 'team-lead' }).success).toBe(false);
    expect(TaskInputSchema.safeParse({ ...base, subagent_type: 'x', model: 'fable' }).success).toBe(
      false,
    );
  });

  it('routes: team_name + name → teammate, background → background, no type → fork, else subagent', () => {
    const input = { description: 'd', prompt: 'p' };
    expect(chooseSpawnPath({ ...input, team_name: 't', name: 'n' }, undefined)).toBe('teammate');
    expect(
      chooseSpawnPath({ ...input, subagent_type: 'x', run_in_background: true }, REVIEWER),
    ).toBe('background');
    expect(
      chooseSpawnPath({ ...input, subagent_type: 'x' }, { ...REVIEWER, background: true }),
    ).toBe('background');
    expect(chooseSpawnPath(input, undefined)).toBe('fork');
    expect(chooseSpawnPath({ ...input, subagent_type: 'x' }, REVIEWER)).toBe('subagent');
    expect(chooseSpawnPath({ ...input, subagent_type: 'x', name: 'n' }, REVIEWER)).toBe('subagent');
    // Inside a team, name alone makes a teammate of the caller's team.
    expect(chooseSpawnPath({ ...input, subagent_type: 'x', name: 'n' }, REVIEWER, 'crew')).toBe(
      'teammate',
    );
    expect(chooseSpawnPath({ ...input, name: 'n' }, undefined, 'crew')).toBe('teammate');
  });

  it('lists the agent types in its description; the dialect names it Task or Agent', () => {
    const common = {
      definitions: [...BUILT_IN_AGENTS, REVIEWER],
      client: {} as never,
      parentModel: 'm',
      parentName: 'lead',
      tools: () => [],
      authorizerFor: () => allowAll,
      environment: {},
    };
    const task = createSpawnTool({ ...common, dialect: '2.1.45' });
    const agent = createSpawnTool({ ...common, dialect: '2.1.330' });
    expect(task.name).toBe('Task');
    expect(agent.name).toBe('Agent');
    for (const name of ['general-purpose', 'Explore', 'Plan', 'reviewer']) {
      expect(task.description).toContain(`- ${name}: `);
    }
    expect(task.description).toContain('Reviews a change and reports problems.');
    expect(agent.description).toContain('Leave subagent_type out to fork');
    expect(task.description).not.toContain('fork');
  });
});

describe('synchronous subagent', () => {
  it('runs an isolated conversation from its definition and returns its report with tool uses and tokens', async () => {
    const cwd = await makeTempDirectory('muster-spawn-');
    const calls: string[] = [];
    const parent = openSpawnParent({
      cwd,
      tools: [probeTool(calls)],
      script: (request) => {
        if (isParentRequest(request)) {
          return afterToolResult(request)
            ? say('The review is in.')
            : use('Task', {
                description: 'Review',
                prompt: 'Review the change in a.ts',
                subagent_type: 'reviewer',
              });
        }
        return afterToolResult(request)
          ? say('Found one problem in a.ts line 3.')
          : use('Probe', { tag: 'look' });
      },
    });
    try {
      const { result, events } = await parent.run(
        'Please get the change reviewed. SECRET-PARENT-CONTEXT',
      );
      expect(result.reason).toBe('completed');
      const end = toolEnd(events, 'Task');
      expect(end.isError).toBe(false);
      expect(end.resultText).toMatch(
        /^Found one problem in a\.ts line 3\.\n\nagentId: a[0-9a-f]{16} /,
      );
      expect(end.resultText).toMatch(
        /<usage>total_tokens: [1-9]\d*\ntool_uses: 1\nduration_ms: \d+<\/usage>$/,
      );
      const childRequests = parent.scriptedFetch
        .requests()
        .filter((request) => !isParentRequest(request));
      expect(childRequests).toHaveLength(2);
      const first = childRequests[0]!;
      // A fresh conversation: only the prompt, none of the parent's context.
      expect(first.body.messages).toHaveLength(1);
      expect(JSON.stringify(first.body.messages)).not.toContain('SECRET-PARENT-CONTEXT');
      expect(lastText(first)).toContain('Review the change in a.ts');
      expect(JSON.stringify(first.body.system)).toContain(REVIEWER.systemPrompt);
      // Its pool: the definition's tools only (never the spawn tool).
      expect((first.body.tools as Anthropic.Tool[]).map((tool) => tool.name)).toEqual(['Probe']);
      expect(calls).toEqual([expect.stringMatching(/^a[0-9a-f]{16}:look$/)]);
      expect(
        parent.events.map((event) => [event.type, 'path' in event ? event.path : undefined]),
      ).toEqual(
        expect.arrayContaining([
          ['spawn', 'subagent'],
          ['spawn_end', 'subagent'],
        ]),
      );
    } finally {
      await parent.close();
    }
  });

  it('refuses an unknown subagent_type with the known types', async () => {
    const cwd = await makeTempDirectory('muster-spawn-');
    const parent = openSpawnParent({
      cwd,
      script: (request) =>
        afterToolResult(request)
          ? say('ok')
          : use('Task', { description: 'x', prompt: 'y', subagent_type: 'no-such-agent' }),
    });
    try {
      const end = toolEnd((await parent.run('go')).events, 'Task');
      expect(end.isError).toBe(true);
      expect(end.resultText).toContain('Unknown agent type "no-such-agent"');
      expect(end.resultText).toContain('general-purpose, Explore, Plan, reviewer');
      expect(parent.scriptedFetch.requests()).toHaveLength(2);
    } finally {
      await parent.close();
    }
  });

  it('runs SubagentStart and SubagentStop hooks; a blocking stop hook sends the subagent back once', async () => {
    const cwd = await makeTempDirectory('muster-spawn-hooks-');
    const home = await makeTempDirectory('muster-spawn-home-');
    const log = path.join(cwd, 'hooks.log');
    const marker = path.join(cwd, 'stopped-once');
    await mkdir(path.join(cwd, '.muster'));
    const hook = (line: string) => [{ hooks: [{ type: 'command', command: line }] }];
    await writeFile(
      path.join(cwd, '.muster', 'settings.json'),
      JSON.stringify({
        hooks: {
          SubagentStart: hook(`cat >> ${log}; echo >> ${log}; echo 'Context from the start hook.'`),
          SubagentStop: hook(
            `cat >> ${log}; echo >> ${log}; if [ ! -e ${marker} ]; then touch ${marker}; echo 'Check the tests too.' >&2; exit 2; fi`,
          ),
        },
      }),
    );
    const hooks = await loadHooks({ cwd, home });
    const parent = openSpawnParent({
      cwd,
      spawn: { hooks },
      script: (request) => {
        if (isParentRequest(request)) {
          return afterToolResult(request)
            ? say('done')
            : use('Task', {
                description: 'Review',
                prompt: 'Review it',
                subagent_type: 'reviewer',
              });
        }
        return lastText(request).includes('Check the tests too.')
          ? say('Tests checked too.')
          : say('Reviewed.');
      },
    });
    try {
      const end = toolEnd((await parent.run('go')).events, 'Task');
      expect(end.resultText).toMatch(/^Tests checked too\./);
      const childRequests = parent.scriptedFetch
        .requests()
        .filter((request) => !isParentRequest(request));
      expect(lastText(childRequests[0]!)).toContain('Context from the start hook.');
      const payloads = (await readFile(log, 'utf8'))
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(payloads.map((payload) => [payload.hook_event_name, payload.agent_type])).toEqual([
        ['SubagentStart', 'reviewer'],
        ['SubagentStop', 'reviewer'],
        ['SubagentStop', 'reviewer'],
      ]);
      expect(payloads[0]!.agent_id).toMatch(/^a[0-9a-f]{16}$/);
    } finally {
      await parent.close();
    }
  });
});

describe('synchronous subagent abort', () => {
  it('ends with the parent’s turn: aborting the turn aborts the subagent’s request (spawn_end killed)', async () => {
    const cwd = await makeTempDirectory('muster-spawn-abort-');
    let childAborted = false;
    const parent = openSpawnParent({
      cwd,
      script: (request, context) => {
        if (isParentRequest(request)) {
          return use('Task', {
            description: 'Slow',
            prompt: 'Take forever',
            subagent_type: 'reviewer',
          });
        }
        context.signal.addEventListener('abort', () => (childAborted = true), { once: true });
        return {
          ...say('never finished'),
          fault: { kind: 'pings-only' as const, durationMs: 120_000, intervalMs: 200 },
        };
      },
    });
    try {
      const turn = parent.agent.send('go');
      const seen: string[] = [];
      for await (const event of turn) {
        seen.push(event.type);
        if (event.type === 'tool_call_start') {
          const deadline = Date.now() + 20_000;
          while (!parent.scriptedFetch.requests().some((request) => !isParentRequest(request))) {
            if (Date.now() > deadline) throw new Error('the subagent never sent its request');
            await new Promise((resolve) => setTimeout(resolve, 10));
          }
          turn.abort('test aborts the parent turn');
        }
      }
      const result = await turn.result;
      expect(result.reason).toBe('aborted');
      const deadline = Date.now() + 20_000;
      while (!parent.events.some((event) => event.type === 'spawn_end') && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(parent.events.find((event) => event.type === 'spawn_end')).toMatchObject({
        path: 'subagent',
        status: 'killed',
      });
      expect(childAborted).toBe(true);
    } finally {
      await parent.close();
    }
  });
});
