import { MODEL_ALIASES } from '@muster/query';
import { describe, expect, it } from 'vitest';
import { resolveAgentModel } from './agent-model.js';

const definition = { name: 'reviewer', model: 'haiku', path: '/p/.muster/agents/reviewer.md' };

describe('resolveAgentModel', () => {
  it('walks the chain: muster variable, Claude Code variable, tool, definition, parent', () => {
    const parentModel = 'claude-opus-5-5';
    const resolve = (environment: Record<string, string>, toolModel?: string) =>
      resolveAgentModel({
        environment,
        parentModel,
        definition,
        ...(toolModel === undefined ? {} : { toolModel }),
      });
    expect(
      resolve(
        { MUSTER_SUBAGENT_MODEL: 'claude-x-1', CLAUDE_CODE_SUBAGENT_MODEL: 'claude-y-1' },
        'opus',
      ),
    ).toEqual({
      model: 'claude-x-1',
      source: 'MUSTER_SUBAGENT_MODEL',
    });
    expect(
      resolve({ MUSTER_SUBAGENT_MODEL: ' ', CLAUDE_CODE_SUBAGENT_MODEL: 'claude-y-1' }, 'opus'),
    ).toEqual({
      model: 'claude-y-1',
      source: 'CLAUDE_CODE_SUBAGENT_MODEL',
    });
    expect(resolve({}, 'sonnet')).toEqual({ model: MODEL_ALIASES['sonnet'], source: 'tool' });
    expect(resolve({}, 'inherit')).toEqual({ model: MODEL_ALIASES['haiku'], source: 'definition' });
    expect(resolve({})).toEqual({ model: MODEL_ALIASES['haiku'], source: 'definition' });
    expect(
      resolveAgentModel({
        environment: {},
        parentModel,
        definition: { ...definition, model: 'inherit' },
      }),
    ).toEqual({
      model: parentModel,
      source: 'parent',
    });
    expect(resolveAgentModel({ environment: {}, parentModel: 'opus' })).toEqual({
      model: MODEL_ALIASES['opus'],
      source: 'parent',
    });
  });

  it("resolves aliases with the environment's alias variables", () => {
    const resolved = resolveAgentModel({
      environment: {
        MUSTER_SUBAGENT_MODEL: 'Sonnet',
        ANTHROPIC_DEFAULT_SONNET_MODEL: 'claude-sonnet-4-6',
      },
      parentModel: 'claude-opus-5-5',
    });
    expect(resolved).toEqual({ model: 'claude-sonnet-4-6', source: 'MUSTER_SUBAGENT_MODEL' });
  });

  it('names the source of a bad value', () => {
    expect(() =>
      resolveAgentModel({
        environment: { MUSTER_SUBAGENT_MODEL: 'not a model' },
        parentModel: 'opus',
      }),
    ).toThrow(/"not a model" from the environment variable MUSTER_SUBAGENT_MODEL cannot be used/);
    expect(() =>
      resolveAgentModel({ environment: {}, toolModel: 'bad model', parentModel: 'opus' }),
    ).toThrow(/from the Task tool's `model` parameter/);
    expect(() =>
      resolveAgentModel({
        environment: {},
        definition: { ...definition, model: 'x y' },
        parentModel: 'opus',
      }),
    ).toThrow(
      /from the `model` of the agent definition "reviewer" \(\/p\/\.muster\/agents\/reviewer\.md\)/,
    );
    expect(() =>
      resolveAgentModel({ environment: {}, toolModel: '', parentModel: 'opus' }),
    ).toThrow(/must be a model id or alias/);
    expect(() => resolveAgentModel({ environment: {}, parentModel: '' })).toThrow(
      /`parentModel` must be/,
    );
    try {
      resolveAgentModel({ environment: { CLAUDE_CODE_SUBAGENT_MODEL: '?' }, parentModel: 'opus' });
      expect.unreachable();
    } catch (error) {
      expect((error as { code?: string }).code).toBe('INVALID_MODEL');
    }
  });
});
