// What a model's tokens cost: a small, explicit table of Anthropic's list prices per million
// tokens, and the estimate of one request's (or one agent's) cost from its token usage. A model
// that is not in the table has no price: callers show "cost unknown", never a guessed number.
//
// Prices taken on 2026-11-28 from Anthropic's documentation (USD per million tokens):
// - https://platform.claude.com/docs/en/about-claude/pricing ("Model pricing": base input,
//   5m cache writes, 1h cache writes, cache hits and refreshes, output);
// - the model overview pages under https://platform.claude.com/docs/en/models/ (Opus 5.5,
//   Sonnet 5.5, Haiku 5.5, Fable 5.2, …: "Specifications → Pricing");
// - the Sonnet 5.5 cache-read cut from $0.20 to $0.10 (effective 2026-10-07), as several
//   public price trackers re-audited against the pricing page record it.
// Claude Mythos 5.2 is left out on purpose: Mythos 5 and 5.1 were documented at Fable's prices,
// but no page read for this table says so for 5.2. Update this file (and the date) whenever
// Anthropic changes a price; `MODEL_PRICES_DATE` tells a reader how old the figures are.
import type { TokenUsage } from './agent-types.js';
import { MODEL_ALIASES } from './model-names.js';
import { QueryError } from './query-error.js';

/** The day the prices in {@link MODEL_PRICES} were taken (`YYYY-MM-DD`). */
export const MODEL_PRICES_DATE = '2026-11-28';

/** One model's list prices in US dollars per million tokens. */
export interface ModelPriceRates {
  /** Uncached input tokens. */
  input: number;
  /** Generated tokens. */
  output: number;
  /** Input tokens written to the cache with the default 5-minute lifetime. */
  cacheWrite5m: number;
  /** Input tokens written to the cache with the 1-hour lifetime. */
  cacheWrite1h: number;
  /** Input tokens read from the cache (hits and refreshes). */
  cacheRead: number;
}

/** A model's prices: one set, or a second set for requests whose prompt is long. */
export interface ModelPrice extends ModelPriceRates {
  /**
   * Prices of a request whose prompt (input + cache writes + cache reads) is over
   * `thresholdTokens`: every token of that request, output included, is billed at these.
   */
  longPrompt?: ModelPriceRates & { thresholdTokens: number };
}

const rates = (
  input: number,
  output: number,
  cacheWrite5m: number,
  cacheWrite1h: number,
  cacheRead: number,
): ModelPriceRates => Object.freeze({ input, output, cacheWrite5m, cacheWrite1h, cacheRead });

const fable5_2 = rates(8, 40, 10, 16, 0.2);
const fable5_1 = rates(10, 50, 12.5, 20, 0.25);
const fable5 = rates(10, 50, 12.5, 20, 1);
const opus5_5 = rates(4, 20, 5, 8, 0.2);
const opus5 = rates(5, 25, 6.25, 10, 0.5);
const opus4 = rates(15, 75, 18.75, 30, 1.5);
const sonnet5_5 = rates(2, 10, 2.5, 4, 0.1);
const sonnet5 = rates(2, 10, 2.5, 4, 0.2);
const sonnet4 = rates(3, 15, 3.75, 6, 0.3);
const haiku5_5: ModelPrice = Object.freeze({
  ...rates(0.1, 0.5, 0.125, 0.2, 0.01),
  longPrompt: Object.freeze({ ...rates(0.5, 2.5, 0.625, 1, 0.05), thresholdTokens: 100_000 }),
});
const haiku4_5 = rates(1, 5, 1.25, 2, 0.1);
const haiku3_5 = rates(0.8, 4, 1, 1.6, 0.08);
const haiku3 = rates(0.25, 1.25, 0.3, 0.5, 0.03);

/**
 * List prices by model id (without a date suffix or a `[1m]` tag), US dollars per million
 * tokens, as of {@link MODEL_PRICES_DATE}.
 */
export const MODEL_PRICES: Readonly<Record<string, ModelPrice>> = Object.freeze({
  'claude-fable-5-2': fable5_2,
  'claude-fable-5-1': fable5_1,
  'claude-mythos-5-1': fable5_1,
  'claude-fable-5': fable5,
  'claude-mythos-5': fable5,
  'claude-opus-5-5': opus5_5,
  'claude-opus-5': opus5,
  'claude-opus-4-8': opus5,
  'claude-opus-4-7': opus5,
  'claude-opus-4-6': opus5,
  'claude-opus-4-5': opus5,
  'claude-opus-4-1': opus4,
  'claude-opus-4-0': opus4,
  'claude-opus-4': opus4,
  'claude-3-opus': opus4,
  'claude-sonnet-5-5': sonnet5_5,
  'claude-sonnet-5': sonnet5,
  'claude-sonnet-4-6': sonnet4,
  'claude-sonnet-4-5': sonnet4,
  'claude-sonnet-4-0': sonnet4,
  'claude-sonnet-4': sonnet4,
  'claude-3-7-sonnet': sonnet4,
  'claude-haiku-5-5': haiku5_5,
  'claude-haiku-4-5': haiku4_5,
  'claude-3-5-haiku': haiku3_5,
  'claude-3-haiku': haiku3,
});

const USAGE_FIELDS = [
  'inputTokens',
  'outputTokens',
  'cacheCreationInputTokens',
  'cacheReadInputTokens',
] as const;

/** Options of {@link estimateCostUsd}. */
export interface EstimateCostOptions {
  /** The lifetime the cache writes were made with (default `5m`, what muster's requests use). */
  cacheTtl?: '5m' | '1h';
}

/**
 * The table key of `model`: an alias (`sonnet`) becomes its default id; a trailing
 * `[1m]`-style tag and a `-YYYYMMDD` date are dropped (`claude-sonnet-4-5-20250929` →
 * `claude-sonnet-4-5`). Case-insensitive.
 */
function priceKey(model: string): string {
  let key = model.trim().toLowerCase();
  key = MODEL_ALIASES[key] ?? key;
  key = key.replace(/\[[^\]]*\]$/, '');
  key = key.replace(/-\d{8}$/, '');
  return key;
}

/**
 * The list prices of `model` (an id, a dated id or an alias), or `undefined` when the table
 * does not know it (a custom model, a test double, another provider's id).
 */
export function modelPrice(model: string): ModelPrice | undefined {
  if (typeof model !== 'string' || model.trim() === '') return undefined;
  const key = priceKey(model);
  return Object.hasOwn(MODEL_PRICES, key) ? MODEL_PRICES[key] : undefined;
}

/**
 * The estimated cost in US dollars of `usage` on `model` at list prices, or `undefined` when
 * the model has no price in {@link MODEL_PRICES} (show "cost unknown"; never substitute a
 * number). `usage` is taken as ONE request's: a model with long-prompt prices (Haiku 5.5)
 * bills a request by its own prompt length, so sum the estimates of each request (the `usage`
 * agent event's `request`) rather than estimating a total. For models with one set of prices
 * the estimate of a total equals the sum of its requests' estimates. Batch, fast-mode, data
 * residency and tool fees are not included.
 */
export function estimateCostUsd(
  model: string,
  usage: TokenUsage,
  options: EstimateCostOptions = {},
): number | undefined {
  for (const field of USAGE_FIELDS) {
    const value = usage?.[field];
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new QueryError({
        code: 'INVALID_OPTIONS',
        message: `estimateCostUsd: usage.${field} must be a token count (a number of at least 0), got ${String(value)}; pass a TokenUsage as the agent's usage events give it.`,
      });
    }
  }
  const price = modelPrice(model);
  if (price === undefined) return undefined;
  const prompt = usage.inputTokens + usage.cacheCreationInputTokens + usage.cacheReadInputTokens;
  const applied: ModelPriceRates =
    price.longPrompt !== undefined && prompt > price.longPrompt.thresholdTokens
      ? price.longPrompt
      : price;
  const cacheWrite = options.cacheTtl === '1h' ? applied.cacheWrite1h : applied.cacheWrite5m;
  const microDollars =
    usage.inputTokens * applied.input +
    usage.outputTokens * applied.output +
    usage.cacheCreationInputTokens * cacheWrite +
    usage.cacheReadInputTokens * applied.cacheRead;
  return microDollars / 1_000_000;
}
