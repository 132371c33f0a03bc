// `isolation: worktree` with real git: a subagent works in a worktree of its own, which is
// removed when it left nothing and kept (with a notice in the result) when it made changes.
// The model is @muster/scripted-model, a TEST DOUBLE of the Messages API.
import { execFileSync } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ToolContext } from '@muster/query';
import { makeTempDirectory } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AgentDefinition } from './agent-definition.js';
import { worktreeIsolation } from './spawn-tool-worktree.js';
import {
  afterToolResult,
  isParentRequest,
  lastText,
  openSpawnParent,
  say,
  toolEnd,
  use,
} from './spawn-tool-test-support.js';

const ISOLATED: AgentDefinition = Object.freeze({
  name: 'isolated-writer',
  description: 'Writes files in a worktree of its own.',
  tools: Object.freeze(['Touch']),
  isolation: 'worktree',
  systemPrompt: 'You are the scripted isolated writer.',
  source: 'caller',
});

const touchedIn: string[] = [];
const touchTool = {
  name: 'Touch',
  description: 'Test tool: creates a file in the working directory.',
  inputSchema: z.strictObject({ name: z.string() }),
  isReadOnly: () => false,
  isConcurrencySafe: () => false,
  async call(input: { name: string }, context: ToolContext) {
    touchedIn.push(context.cwd);
    await writeFile(path.join(context.cwd, input.name), 'made by the subagent\n');
    return { content: `created ${input.name}` };
  },
};

async function repository(): Promise<string> {
  const repo = realpathSync(await makeTempDirectory('muster-spawn-worktree-'));
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, stdio: 'pipe' });
  git('init', '-q', '-b', 'main');
  git('config', 'user.email', 'test@example.invalid');
  git('config', 'user.name', 'Test');
  await writeFile(path.join(repo, 'README.md'), 'hello\n');
  git('add', 'README.md');
  git('commit', '-q', '-m', 'initial');
  return repo;
}

describe('isolation: worktree', () => {
  it('removes a worktree the subagent left clean and keeps one it changed, saying where', async () => {
    const repo = await repository();
    const kept: string[] = [];
    const parent = openSpawnParent({
      cwd: repo,
      tools: [touchTool],
      definitions: [ISOLATED],
      spawn: { createWorktree: worktreeIsolation({ onKept: (notice) => kept.push(notice) }) },
      script: (request) => {
        if (isParentRequest(request)) {
          if (afterToolResult(request)) return say('done');
          const wantsChange = lastText(request).includes('change something');
          return use('Task', {
            description: 'Isolated work',
            prompt: wantsChange ? 'Create notes.txt.' : 'Look only.',
            subagent_type: 'isolated-writer',
          });
        }
        if (lastText(request).includes('Create notes.txt.'))
          return use('Touch', { name: 'notes.txt' });
        return say(afterToolResult(request) ? 'Created it.' : 'Looked; nothing to change.');
      },
    });
    try {
      const clean = toolEnd((await parent.run('look only')).events, 'Task');
      expect(clean.isError).toBe(false);
      expect(clean.resultText).not.toContain('kept');
      const firstChild = parent.scriptedFetch
        .requests()
        .find((request) => !isParentRequest(request))!;
      expect(JSON.stringify(firstChild.body.system)).toContain(
        path.join(repo, '.muster', 'worktrees', 'agents'),
      );
      const worktrees = path.join(repo, '.muster', 'worktrees', 'agents');
      const leftAfterClean = existsSync(worktrees)
        ? execFileSync('ls', [worktrees], { encoding: 'utf8' }).trim()
        : '';
      expect(leftAfterClean).toBe('');

      const changed = toolEnd((await parent.run('change something')).events, 'Task');
      expect(changed.isError).toBe(false);
      expect(changed.resultText).toContain("The agent's worktree was kept at ");
      expect(kept).toHaveLength(1);
      const worktree = touchedIn.at(-1)!;
      expect(worktree.startsWith(worktrees)).toBe(true);
      expect(existsSync(path.join(worktree, 'notes.txt'))).toBe(true);
      expect(existsSync(path.join(repo, 'notes.txt'))).toBe(false);
    } finally {
      await parent.close();
    }
  });
});

describe('a fork with isolation: worktree', () => {
  it('is told in its directive to translate paths to its worktree, which is removed when left clean', async () => {
    const repo = await repository();
    const parent = openSpawnParent({
      cwd: repo,
      dialect: '2.1.330',
      spawn: { createWorktree: worktreeIsolation() },
      script: (request) => {
        const text = lastText(request);
        if (text.includes('Fork part C.')) return say('Part C looked at.');
        return afterToolResult(request)
          ? say('done')
          : use('Agent', { description: 'Part C', prompt: 'Fork part C.', isolation: 'worktree' });
      },
    });
    try {
      const end = toolEnd((await parent.run('go')).events, 'Agent');
      expect(end.isError).toBe(false);
      expect(end.resultText).toMatch(/^Part C looked at\./);
      const child = parent.scriptedFetch
        .requests()
        .find((request) => lastText(request).includes('Fork part C.'))!;
      const directive = lastText(child);
      const worktrees = path.join(repo, '.muster', 'worktrees', 'agents');
      expect(directive).toContain(`not in ${repo}`);
      expect(directive).toContain(worktrees);
      expect(directive).toContain('translate them');
      const left = existsSync(worktrees)
        ? execFileSync('ls', [worktrees], { encoding: 'utf8' }).trim()
        : '';
      expect(left).toBe('');
    } finally {
      await parent.close();
    }
  });
});
