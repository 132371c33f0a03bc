// The fork path of the `Agent` tool at the scripted model (a TEST DOUBLE of the Messages API):
// the child's request repeats the parent's system prompt, tools and conversation byte for byte
// (cache markers aside) and differs only by its directive; a fork inside a fork is refused.
import type Anthropic from '@anthropic-ai/sdk';
import { makeTempDirectory } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import { worktreeForkNotice } from './fork-path.js';
import {
  afterToolResult,
  isParentRequest,
  lastText,
  openSpawnParent,
  say,
  toolEnd,
  use,
} from './spawn-tool-test-support.js';
import type { ScriptRequest } from '@muster/scripted-model';

const DIRECTIVE = 'Work out part B of the plan.';

function withoutMarkers(value: unknown): string {
  return JSON.stringify(value, (key, inner: unknown) =>
    key === 'cache_control' ? undefined : inner,
  );
}

function isChild(request: ScriptRequest): boolean {
  const messages = request.body.messages as Anthropic.MessageParam[];
  return JSON.stringify(messages.slice(1)).includes(DIRECTIVE) && !afterToolResultOfParent(request);
}

function afterToolResultOfParent(request: ScriptRequest): boolean {
  // The parent's follow-up request carries the Agent tool's result (the child's report).
  return lastText(request).includes('agentId: ');
}

describe('fork path', () => {
  it('inherits the parent’s request byte for byte up to its directive, and refuses a fork inside it', async () => {
    const cwd = await makeTempDirectory('muster-fork-');
    let childTurns = 0;
    const parent = openSpawnParent({
      cwd,
      dialect: '2.1.330',
      script: (request) => {
        if (isChild(request)) {
          childTurns += 1;
          // The child tries to fork again, then reports.
          return lastText(request).includes(DIRECTIVE)
            ? use('Agent', { description: 'nested', prompt: 'Fork again.' })
            : say('Part B worked out.');
        }
        return afterToolResult(request)
          ? say('All parts done.')
          : use('Agent', { description: 'Part B', prompt: DIRECTIVE });
      },
    });
    try {
      const { result, events } = await parent.run('Plan the work. PARENT-ONLY-CONTEXT');
      expect(result.reason).toBe('completed');
      const end = toolEnd(events, 'Agent');
      expect(end.isError).toBe(false);
      expect(end.resultText).toMatch(/^Part B worked out\.\n\nagentId: a[0-9a-f]{16} /);
      const requests = parent.scriptedFetch.requests();
      const parentFirst = requests[0]!;
      const children = requests.filter(isChild);
      expect(children).toHaveLength(2);
      expect(childTurns).toBe(2);
      const child = children[0]!;
      expect(isParentRequest(child)).toBe(true); // the parent's own system prompt
      expect(withoutMarkers(child.body.system)).toBe(withoutMarkers(parentFirst.body.system));
      expect(withoutMarkers(child.body.tools)).toBe(withoutMarkers(parentFirst.body.tools));
      expect(child.body.model).toBe(parentFirst.body.model);
      const parentMessages = parentFirst.body.messages as Anthropic.MessageParam[];
      const childMessages = child.body.messages as Anthropic.MessageParam[];
      expect(withoutMarkers(childMessages.slice(0, parentMessages.length))).toBe(
        withoutMarkers(parentMessages),
      );
      expect(JSON.stringify(childMessages)).toContain('PARENT-ONLY-CONTEXT');
      expect(lastText(child)).toContain(DIRECTIVE);
      // The nested fork came back as an error result to the child.
      const nested = lastText(children[1]!);
      expect(nested).toContain('a fork cannot fork again');
      const nestedBlock = (children[1]!.body.messages as Anthropic.MessageParam[]).at(-1)!
        .content as Anthropic.ToolResultBlockParam[];
      expect(nestedBlock[0]).toMatchObject({ type: 'tool_result', is_error: true });
      expect(
        parent.events
          .filter((event) => event.type === 'spawn' || event.type === 'spawn_end')
          .map((event) => [event.type, 'path' in event && event.path]),
      ).toEqual([
        ['spawn', 'fork'],
        ['spawn_end', 'fork'],
      ]);
    } finally {
      await parent.close();
    }
  });

  it('tells a fork in a worktree to translate paths', () => {
    const notice = worktreeForkNotice('/repo', '/repo/.worktrees/a1');
    expect(notice).toContain('/repo/.worktrees/a1');
    expect(notice).toContain('translate');
  });

  it('is refused in the Task dialect, which needs subagent_type', async () => {
    const cwd = await makeTempDirectory('muster-fork-');
    const parent = openSpawnParent({
      cwd,
      script: (request) =>
        afterToolResult(request) ? say('ok') : use('Task', { description: 'x', prompt: 'y' }),
    });
    try {
      const end = toolEnd((await parent.run('go')).events, 'Task');
      expect(end.isError).toBe(true);
      expect(parent.events).toEqual([]);
    } finally {
      await parent.close();
    }
  });
});
