// createAgent resolves a model alias once, with the agent's environment, and refuses a name
// that is not a model id before any request is sent.
import { describe, expect, it } from 'vitest';
import { text } from '@muster/scripted-model';
import { openScriptedAgent } from './agent-test-support.js';
import { QueryError } from './query-error.js';

describe('createAgent and model names', () => {
  it('sends the id an alias stands for, overridden as Claude Code reads it', async () => {
    const { agent, scriptedFetch } = openScriptedAgent(() => text('Hi.'), {
      model: 'sonnet',
      environment: { PATH: '/usr/bin:/bin', ANTHROPIC_DEFAULT_SONNET_MODEL: 'claude-sonnet-4-6' },
    });
    try {
      await agent.send('Hello').result;
      await agent.send('Again').result;
      expect(scriptedFetch.requests().map((request) => request.body.model)).toEqual([
        'claude-sonnet-4-6',
        'claude-sonnet-4-6',
      ]);
    } finally {
      await agent.close();
    }
  });

  it('refuses a model name that is not an id, naming it', () => {
    expect(() => openScriptedAgent(() => text('never'), { model: 'claude sonnet' })).toThrow(
      QueryError,
    );
    expect(() => openScriptedAgent(() => text('never'), { model: 'claude sonnet' })).toThrow(
      /"claude sonnet" is not a model id/,
    );
  });
});
