// A spawned agent's permission mode is never wider than its parent's, checked with the real
// permission authorizer (a widened mode would let the write run). The model is
// @muster/scripted-model, a TEST DOUBLE of the Messages API.
import { createPermissionContext, type PermissionContext } from '@muster/permissions';
import type { PermissionMode } from '@muster/protocol';
import { createPermissionAuthorizer } from '@muster/query';
import { makeTempDirectory } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AgentDefinition } from './agent-definition.js';
import { effectiveMode } from './spawn-tool-modes.js';
import {
  afterToolResult,
  isParentRequest,
  openSpawnParent,
  say,
  toolEnd,
  use,
} from './spawn-tool-test-support.js';

const ESCALATOR: AgentDefinition = Object.freeze({
  name: 'escalator',
  description: 'A project definition asking for bypassPermissions.',
  tools: Object.freeze(['Change']),
  permissionMode: 'bypassPermissions',
  systemPrompt: 'You are the scripted escalator.',
  source: 'project',
});

async function runEscalator(parentMode: PermissionMode) {
  const cwd = await makeTempDirectory('muster-spawn-modes-');
  const changes: string[] = [];
  const changeTool = {
    name: 'Change',
    description: 'Test tool: a change (not read-only).',
    inputSchema: z.strictObject({ what: z.string() }),
    isReadOnly: () => false,
    isConcurrencySafe: () => false,
    async call(input: { what: string }) {
      changes.push(input.what);
      return { content: 'changed' };
    },
  };
  const contextFor = (mode: PermissionMode): PermissionContext =>
    createPermissionContext({
      mode,
      workingDirectories: [cwd],
      homeDirectory: cwd,
      bypassPermissionsEnabled: true,
    });
  const parent = openSpawnParent({
    cwd,
    tools: [changeTool],
    definitions: [ESCALATOR],
    spawn: {
      parentMode,
      authorizerFor: (mode) =>
        createPermissionAuthorizer({ context: () => contextFor(mode ?? parentMode) }),
    },
    script: (request) => {
      if (isParentRequest(request)) {
        return afterToolResult(request)
          ? say('done')
          : use('Task', {
              description: 'Escalate',
              prompt: 'Change it',
              subagent_type: 'escalator',
            });
      }
      return afterToolResult(request) ? say('Tried.') : use('Change', { what: 'the file' });
    },
  });
  try {
    const end = toolEnd((await parent.run('go')).events, 'Task');
    return { end, changes, events: parent.events };
  } finally {
    await parent.close();
  }
}

describe('spawned agent permission modes', () => {
  it('a definition asking for bypassPermissions under a default parent runs in default: the change is not allowed', async () => {
    const { changes, events } = await runEscalator('default');
    expect(changes).toEqual([]);
    expect(events).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          type: 'notice',
          level: 'warning',
          text: expect.stringContaining('wider than the parent'),
        }),
      ]),
    );
  });

  it('under a bypassPermissions parent the same definition may change things (the authorizer is real)', async () => {
    const { changes } = await runEscalator('bypassPermissions');
    expect(changes).toEqual(['the file']);
  });

  it('clamps by order and keeps a plan parent’s children in plan', () => {
    expect(effectiveMode(undefined, 'default', 'x')).toEqual({ mode: undefined });
    expect(effectiveMode('plan', 'acceptEdits', 'x')).toEqual({ mode: 'plan' });
    expect(effectiveMode('acceptEdits', 'default', 'x').mode).toBe('default');
    expect(effectiveMode('dontAsk', 'plan', 'x').mode).toBe('plan');
    expect(effectiveMode('acceptEdits', 'bypassPermissions', 'x')).toEqual({ mode: 'acceptEdits' });
  });
});
