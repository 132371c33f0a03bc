// createPermissionAuthorizer and rootsFromPermissionContext over real directories (with a
// symbolic link) and @muster/permissions' real decision function.
import { mkdir, realpath, symlink } from 'node:fs/promises';
import path from 'node:path';
import {
  createMemoryAuditLog,
  createPermissionContext,
  type PermissionContext,
} from '@muster/permissions';
import { makeTempDirectory } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import type { AgentEvent, ToolCallRequest } from './agent-types.js';
import { createPermissionAuthorizer, rootsFromPermissionContext } from './permission-authorizer.js';

async function workspace() {
  const base = await realpath(await makeTempDirectory());
  const project = path.join(base, 'project');
  const home = path.join(base, 'home');
  await mkdir(project);
  await mkdir(home);
  return { base, project, home };
}

function call(
  toolName: string,
  input: Record<string, unknown>,
  readOnly: boolean,
  paths: string[] = [],
): ToolCallRequest {
  return { toolName, toolUseId: 'toolu_1', input, readOnly, paths, description: toolName };
}

function helpers() {
  const asked: AgentEvent[] = [];
  return {
    asked,
    value: {
      signal: new AbortController().signal,
      announceAsk: () => {
        asked.push({ type: 'permission_ask', toolUseId: 'toolu_1', name: 'x', input: {} });
      },
    },
  };
}

describe('createPermissionAuthorizer', () => {
  it('allows a read inside the working directory and adds its real path to the call roots', async () => {
    const { project, home } = await workspace();
    const context = createPermissionContext({ workingDirectories: [project], homeDirectory: home });
    const audit = createMemoryAuditLog('test-team');
    const authorize = createPermissionAuthorizer({
      context: () => context,
      audit: { sink: audit, actor: 'alice' },
    });
    const file = path.join(project, 'README.md');
    const result = await authorize(
      call('Read', { file_path: file }, true, [file]),
      helpers().value,
    );
    expect(result).toMatchObject({ behavior: 'allow', approvedPaths: [file] });
    expect(audit.entries).toEqual([
      expect.objectContaining({
        kind: 'decision',
        actor: 'alice',
        toolName: 'Read',
        outcome: 'allow',
      }),
    ]);
  });

  it("gives a deny rule's message as is", async () => {
    const { project, home } = await workspace();
    const context = createPermissionContext({
      workingDirectories: [project],
      homeDirectory: home,
      rules: { deny: ['Bash(rm:*)'] },
    });
    const authorize = createPermissionAuthorizer({ context: () => context });
    const result = await authorize(
      call('Bash', { command: 'rm -rf build' }, false),
      helpers().value,
    );
    expect(result.behavior).toBe('deny');
    expect(result.message).toBe(result.decision!.message);
    expect(result.message).toMatch(/rm/);
  });

  it('denies an ask when no one can be asked, saying which rule or mode to change', async () => {
    const { project, home, base } = await workspace();
    const context = createPermissionContext({ workingDirectories: [project], homeDirectory: home });
    const authorize = createPermissionAuthorizer({ context: () => context });
    const outside = path.join(base, 'outside.txt');
    const { asked, value } = helpers();
    const result = await authorize(
      call('Write', { file_path: outside, content: 'x' }, false, [outside]),
      value,
    );
    expect(result.behavior).toBe('deny');
    expect(result.message).toMatch(/No one could be asked/);
    expect(result.message).toMatch(/add an allow rule for it \(for example "Write"/);
    expect(result.message).toMatch(/change the permission mode \(now "default"\)/);
    expect(asked).toHaveLength(0);
  });

  it('announces an ask, then runs with what the handler answered', async () => {
    const { project, home, base } = await workspace();
    const context = createPermissionContext({ workingDirectories: [project], homeDirectory: home });
    const outside = path.join(base, 'shared', 'notes.txt');
    const answers = [
      { behavior: 'allow' as const, input: { file_path: outside, content: 'edited' } },
      { behavior: 'deny' as const, message: 'Not outside the project, please.' },
    ];
    const seen: string[] = [];
    const authorize = createPermissionAuthorizer({
      context: () => context,
      ask: async (request, decision) => {
        seen.push(`${request.toolName}:${decision.behavior}`);
        return answers.shift()!;
      },
    });
    const request = call('Write', { file_path: outside, content: 'x' }, false, [outside]);
    const first = helpers();
    expect(await authorize(request, first.value)).toMatchObject({
      behavior: 'allow',
      asked: true,
      input: { file_path: outside, content: 'edited' },
      approvedPaths: [outside],
    });
    expect(first.asked).toHaveLength(1);
    expect(await authorize(request, helpers().value)).toMatchObject({
      behavior: 'deny',
      asked: true,
      message: 'Not outside the project, please.',
    });
    expect(seen).toEqual(['Write:ask', 'Write:ask']);
  });

  it('stops waiting for an answer when the turn aborts', async () => {
    const { project, home, base } = await workspace();
    const context = createPermissionContext({ workingDirectories: [project], homeDirectory: home });
    const authorize = createPermissionAuthorizer({
      context: () => context,
      ask: () => new Promise(() => undefined), // never answers
    });
    const controller = new AbortController();
    const outside = path.join(base, 'x.txt');
    const pending = authorize(
      call('Write', { file_path: outside, content: 'x' }, false, [outside]),
      {
        signal: controller.signal,
        announceAsk: () => controller.abort(),
      },
    );
    expect(await pending).toMatchObject({
      behavior: 'deny',
      message: expect.stringMatching(/interrupted/),
    });
  });
});

describe('rootsFromPermissionContext', () => {
  it('gives real working directories and team paths; edit-tool team paths are writable', async () => {
    const { base, project, home } = await workspace();
    const shared = path.join(base, 'shared');
    const docs = path.join(base, 'docs');
    await mkdir(shared);
    await mkdir(docs);
    const linked = path.join(base, 'link-to-project');
    await symlink(project, linked);
    const context = createPermissionContext({
      workingDirectories: [linked],
      homeDirectory: home,
      teamAllowedPaths: [
        { path: shared, toolName: 'Edit', addedBy: 'team-lead', addedAt: 1 },
        { path: docs, toolName: 'Read', addedBy: 'team-lead', addedAt: 1 },
      ],
    });
    expect(rootsFromPermissionContext(context)).toEqual({
      read: [project, shared, docs],
      write: [project, shared],
    });
  });

  it('in plan mode only the plan file is writable', async () => {
    const { base, project, home } = await workspace();
    const planFilePath = path.join(base, 'plans', 'plan.md');
    const context: PermissionContext = createPermissionContext({
      mode: 'plan',
      workingDirectories: [project],
      homeDirectory: home,
      planFilePath,
    });
    expect(rootsFromPermissionContext(context)).toEqual({
      read: [project, planFilePath],
      write: [planFilePath],
    });
  });
});
