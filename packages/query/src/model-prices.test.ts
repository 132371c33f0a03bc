import { describe, expect, it } from 'vitest';
import type { TokenUsage } from './agent-types.js';
import { estimateCostUsd, MODEL_PRICES, MODEL_PRICES_DATE, modelPrice } from './model-prices.js';
import { MODEL_ALIASES } from './model-names.js';
import { QueryError } from './query-error.js';

const million: TokenUsage = {
  inputTokens: 1_000_000,
  outputTokens: 1_000_000,
  cacheCreationInputTokens: 1_000_000,
  cacheReadInputTokens: 1_000_000,
};
const only = (field: keyof TokenUsage, tokens: number): TokenUsage => ({
  inputTokens: 0,
  outputTokens: 0,
  cacheCreationInputTokens: 0,
  cacheReadInputTokens: 0,
  [field]: tokens,
});

describe('estimateCostUsd', () => {
  it('prices each kind of token at its own rate (Sonnet 5.5: $2 in, $10 out, $2.50 write, $0.10 read)', () => {
    expect(estimateCostUsd('claude-sonnet-5-5', only('inputTokens', 1_000_000))).toBeCloseTo(2, 10);
    expect(estimateCostUsd('claude-sonnet-5-5', only('outputTokens', 1_000_000))).toBeCloseTo(
      10,
      10,
    );
    expect(
      estimateCostUsd('claude-sonnet-5-5', only('cacheCreationInputTokens', 1_000_000)),
    ).toBeCloseTo(2.5, 10);
    expect(
      estimateCostUsd('claude-sonnet-5-5', only('cacheReadInputTokens', 1_000_000)),
    ).toBeCloseTo(0.1, 10);
    // A small request: 1 200 in, 350 out, 8 000 written, 40 000 read on Opus 5.5.
    expect(
      estimateCostUsd('claude-opus-5-5', {
        inputTokens: 1_200,
        outputTokens: 350,
        cacheCreationInputTokens: 8_000,
        cacheReadInputTokens: 40_000,
      }),
    ).toBeCloseTo((1_200 * 4 + 350 * 20 + 8_000 * 5 + 40_000 * 0.2) / 1_000_000, 12);
  });

  it('uses the 1-hour cache write price only when asked', () => {
    const write = only('cacheCreationInputTokens', 1_000_000);
    expect(estimateCostUsd('claude-opus-5-5', write)).toBeCloseTo(5, 10);
    expect(estimateCostUsd('claude-opus-5-5', write, { cacheTtl: '1h' })).toBeCloseTo(8, 10);
  });

  it('finds dated ids, [1m] tags, aliases and any case', () => {
    const base = estimateCostUsd('claude-sonnet-4-5', million);
    expect(base).toBeCloseTo(3 + 15 + 3.75 + 0.3, 10);
    expect(estimateCostUsd('claude-sonnet-4-5-20250929', million)).toBe(base);
    expect(estimateCostUsd('CLAUDE-SONNET-4-5', million)).toBe(base);
    expect(estimateCostUsd('claude-sonnet-5-5[1m]', million)).toBe(
      estimateCostUsd('claude-sonnet-5-5', million),
    );
    expect(estimateCostUsd('sonnet', million)).toBe(
      estimateCostUsd(MODEL_ALIASES.sonnet!, million),
    );
    expect(estimateCostUsd('opus', million)).toBe(estimateCostUsd('claude-opus-5-5', million));
  });

  it('returns undefined for a model it has no price for, never a made-up number', () => {
    for (const model of [
      'scripted-model',
      'claude-sonnet-9-9',
      'gpt-6-sol',
      'mythos', // claude-mythos-5-2: no documented price was found
      '',
      'anthropic.claude-sonnet-4-5-20250929-v1:0',
    ]) {
      expect(estimateCostUsd(model, million), model).toBeUndefined();
      expect(modelPrice(model), model).toBeUndefined();
    }
    expect(estimateCostUsd('toString', million)).toBeUndefined();
  });

  it('bills a long Haiku 5.5 request (prompt over 100 000 tokens) at the long-prompt prices, output included', () => {
    const short: TokenUsage = { ...only('inputTokens', 100_000), outputTokens: 1_000 };
    const long: TokenUsage = { ...only('inputTokens', 100_001), outputTokens: 1_000 };
    expect(estimateCostUsd('claude-haiku-5-5', short)).toBeCloseTo(
      (100_000 * 0.1 + 1_000 * 0.5) / 1_000_000,
      12,
    );
    expect(estimateCostUsd('claude-haiku-5-5', long)).toBeCloseTo(
      (100_001 * 0.5 + 1_000 * 2.5) / 1_000_000,
      12,
    );
    // Cache reads count toward the prompt length.
    const readHeavy: TokenUsage = { ...only('inputTokens', 10), cacheReadInputTokens: 200_000 };
    expect(estimateCostUsd('claude-haiku-5-5', readHeavy)).toBeCloseTo(
      (10 * 0.5 + 200_000 * 0.05) / 1_000_000,
      12,
    );
  });

  it('refuses usage that is not token counts', () => {
    const bad = { ...million, outputTokens: Number.NaN };
    expect(() => estimateCostUsd('claude-sonnet-5-5', bad)).toThrow(QueryError);
    expect(() => estimateCostUsd('claude-sonnet-5-5', { ...million, inputTokens: -1 })).toThrow(
      /usage.inputTokens must be a token count/,
    );
  });

  it('prices every default alias but mythos, and dates the table', () => {
    for (const [alias, id] of Object.entries(MODEL_ALIASES)) {
      if (alias === 'mythos') continue;
      expect(MODEL_PRICES[id], id).toBeDefined();
    }
    expect(MODEL_PRICES_DATE).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    for (const [id, price] of Object.entries(MODEL_PRICES)) {
      // Anthropic's cache writes cost 1.25× (5 min) and 2× (1 h) the input price, except
      // Claude Haiku 3's 5-minute write ($0.30 for $0.25 input), as the pricing page lists it.
      if (id === 'claude-3-haiku') continue;
      expect(price.cacheWrite5m, id).toBeCloseTo(price.input * 1.25, 10);
      expect(price.cacheWrite1h, id).toBeCloseTo(price.input * 2, 10);
      expect(price.output, id).toBeGreaterThan(price.input);
      expect(Object.isFrozen(price), id).toBe(true);
    }
  });
});
