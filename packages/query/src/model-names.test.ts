import { describe, expect, it } from 'vitest';
import { MODEL_ALIASES, resolveModelName } from './model-names.js';
import { QueryError } from './query-error.js';

describe('resolveModelName', () => {
  it('resolves each alias (any case) to its id and keeps ids as they are', () => {
    for (const [alias, id] of Object.entries(MODEL_ALIASES)) {
      expect(resolveModelName(alias.toUpperCase(), { environment: {} })).toBe(id);
    }
    expect(resolveModelName('claude-opus-4-5-20251101', { environment: {} })).toBe(
      'claude-opus-4-5-20251101',
    );
    expect(resolveModelName('scripted-model', { environment: {} })).toBe('scripted-model');
  });

  it('lets the environment override an alias the way Claude Code reads it', () => {
    const environment = { ANTHROPIC_DEFAULT_SONNET_MODEL: 'claude-sonnet-4-6' };
    expect(resolveModelName('sonnet', { environment })).toBe('claude-sonnet-4-6');
    expect(resolveModelName('opus', { environment })).toBe('claude-opus-5-5');
  });

  it('takes extra aliases', () => {
    expect(
      resolveModelName('fast', { environment: {}, aliases: { fast: 'claude-haiku-4-5' } }),
    ).toBe('claude-haiku-4-5');
  });

  it.each([
    ['', /empty/],
    ['   ', /empty/],
    ['claude sonnet', /is not a model id/],
    ['claude-\nsonnet', /is not a model id/],
    ['x'.repeat(201), /at most 200/],
  ])('refuses %j with a message that says what a model id looks like', (value, message) => {
    let caught: unknown;
    try {
      resolveModelName(value, { environment: {} });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(QueryError);
    expect((caught as QueryError).code).toBe('INVALID_OPTIONS');
    expect((caught as Error).message).toMatch(message);
    expect((caught as Error).message).toContain('claude-sonnet-5-5');
  });

  it('refuses a malformed override and names the variable', () => {
    expect(() =>
      resolveModelName('haiku', { environment: { ANTHROPIC_DEFAULT_HAIKU_MODEL: 'bad model' } }),
    ).toThrow(/ANTHROPIC_DEFAULT_HAIKU_MODEL/);
  });
});
