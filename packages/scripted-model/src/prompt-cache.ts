import { canonicalPrompt, type CanonicalSegment } from './canonical-segments.js';
import { ScriptedModelError } from './scripted-model-error.js';
import type { CacheAccount, CacheUsage, MessagesRequestBody, PromptCache } from './types.js';

/** Options of {@link createPromptCache}. */
export interface PromptCacheOptions {
  /** Milliseconds since the epoch; inject a fake clock in tests. Default `Date.now`. */
  clock?: () => number;
  /**
   * Shortest prefix (in tokens) that is cached, for every model or per model id. A breakpoint
   * whose prefix is shorter writes nothing and its tokens count as `input_tokens`, as the API
   * does silently. Default 1024 for every model.
   */
  minimumTokens?: number | ((model: string) => number);
}

/** Default shortest cacheable prefix, in tokens (the API's figure for Sonnet 4.x/5 and Opus 4.8). */
export const DEFAULT_MINIMUM_CACHE_TOKENS = 1024;
/** Most `cache_control` breakpoints one request may carry (explicit and automatic together). */
export const MAXIMUM_CACHE_BREAKPOINTS = 4;
/** How many blocks back (the breakpoint's own included) a breakpoint looks for a stored prefix. */
export const CACHE_LOOKBACK_BLOCKS = 20;

const TTL_MILLISECONDS = { '5m': 5 * 60_000, '1h': 60 * 60_000 } as const;
type Ttl = keyof typeof TTL_MILLISECONDS;

interface Breakpoint {
  index: number;
  ttl: Ttl;
}

interface Entry {
  ttl: Ttl;
  expiresAt: number;
}

interface PendingWrite {
  key: string;
  ttl: Ttl;
  expiresAt: number;
}

function invalid(message: string): ScriptedModelError {
  return new ScriptedModelError({ status: 400, errorType: 'invalid_request_error', message });
}

function checkMinimum(value: unknown, model: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw new TypeError(
      `createPromptCache: minimumTokens for model "${model}" must be a non-negative integer, got ${String(value)}`,
    );
  }
  return value;
}

/**
 * Finds the request's breakpoints: every block carrying `cache_control`, plus the automatic one a
 * top-level `cache_control` puts on the last cacheable block (thinking blocks are skipped).
 * Refuses, with a 400, more than {@link MAXIMUM_CACHE_BREAKPOINTS}, an automatic marker whose TTL
 * differs from an explicit one on the same block, and a 1h breakpoint after a 5m one.
 */
function findBreakpoints(
  segments: CanonicalSegment[],
  automatic: { ttl: Ttl } | undefined,
): Breakpoint[] {
  const breakpoints: Breakpoint[] = [];
  segments.forEach((segment, index) => {
    if (segment.marker) breakpoints.push({ index, ttl: segment.marker.ttl });
  });
  if (automatic) {
    let index = segments.length - 1;
    while (index >= 0 && /thinking$/.test(segments[index]!.blockType)) index -= 1;
    if (index < 0)
      throw invalid(
        'cache_control: the request has no block that automatic caching can mark (no tools, system or non-thinking content)',
      );
    const explicit = segments[index]!.marker;
    if (explicit && explicit.ttl !== automatic.ttl) {
      throw invalid(
        `cache_control: the automatic breakpoint (ttl ${automatic.ttl}) lands on ${segments[index]!.location}, which already carries cache_control with ttl ${explicit.ttl}; use the same ttl or drop one`,
      );
    }
    if (!explicit) breakpoints.push({ index, ttl: automatic.ttl });
  }
  if (breakpoints.length > MAXIMUM_CACHE_BREAKPOINTS) {
    const where = breakpoints.map((breakpoint) => segments[breakpoint.index]!.location).join(', ');
    throw invalid(
      `A maximum of ${MAXIMUM_CACHE_BREAKPOINTS} blocks with cache_control may be provided. Found ${breakpoints.length} (${where}${automatic ? ', counting the automatic one' : ''}).`,
    );
  }
  let seenShort: Breakpoint | undefined;
  for (const breakpoint of breakpoints) {
    if (breakpoint.ttl === '5m') seenShort ??= breakpoint;
    else if (seenShort) {
      throw invalid(
        `cache_control: a ttl "1h" breakpoint (${segments[breakpoint.index]!.location}) must not come after a ttl "5m" one (${segments[seenShort.index]!.location}); longer TTLs go first`,
      );
    }
  }
  return breakpoints;
}

/**
 * Creates the prompt-cache simulation of `runtime.md` §2.3. `account(body)` renders the request
 * into canonical segments (`canonicalPrompt`), finds its breakpoints, and for each one looks back
 * up to {@link CACHE_LOOKBACK_BLOCKS} blocks for the longest stored prefix of the same model:
 * tokens up to the furthest hit are `cache_read_input_tokens`, tokens from there to the last
 * breakpoint are `cache_creation_input_tokens` (split by TTL), the rest is `input_tokens`.
 * Entries it writes become readable only when the returned account's `publish()` is called (when
 * the request's `message_start` is sent); reads refresh an entry's TTL from the request's start.
 */
export function createPromptCache(options: PromptCacheOptions = {}): PromptCache {
  const clock = options.clock ?? Date.now;
  const minimumOption = options.minimumTokens ?? DEFAULT_MINIMUM_CACHE_TOKENS;
  if (typeof minimumOption !== 'function') checkMinimum(minimumOption, '*');
  const minimumFor = (model: string): number =>
    typeof minimumOption === 'function' ? checkMinimum(minimumOption(model), model) : minimumOption;
  const entries = new Map<string, Entry>();

  const prune = (now: number): void => {
    for (const [key, entry] of entries) if (entry.expiresAt <= now) entries.delete(key);
  };

  return {
    account(body: MessagesRequestBody): CacheAccount {
      if (typeof body !== 'object' || body === null) throw invalid('body: expected a JSON object');
      if (typeof body.model !== 'string' || body.model === '')
        throw invalid('model: expected a non-empty string');
      const now = clock();
      prune(now);
      const prompt = canonicalPrompt(body);
      const { segments } = prompt;
      const breakpoints = findBreakpoints(segments, prompt.automaticMarker);
      const minimum = minimumFor(body.model);
      const keyOf = (index: number): string => `${body.model}\u0000${segments[index]!.prefixHash}`;
      const tokensThrough = (index: number): number =>
        index < 0 ? 0 : segments[index]!.prefixTokens;

      const effective = breakpoints.filter(
        (breakpoint) => tokensThrough(breakpoint.index) >= minimum,
      );
      let readEnd = -1;
      const hits = new Set<string>();
      for (const breakpoint of effective) {
        const lowest = Math.max(0, breakpoint.index - CACHE_LOOKBACK_BLOCKS + 1);
        for (let index = breakpoint.index; index >= lowest; index -= 1) {
          if (entries.has(keyOf(index))) {
            hits.add(keyOf(index));
            readEnd = Math.max(readEnd, index);
            break;
          }
        }
      }
      for (const key of hits) {
        const entry = entries.get(key)!;
        entry.expiresAt = Math.max(entry.expiresAt, now + TTL_MILLISECONDS[entry.ttl]);
      }

      const usage: CacheUsage = {
        input_tokens: 0,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: tokensThrough(readEnd),
        cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
      };
      const pending: PendingWrite[] = [];
      let writtenThrough = readEnd;
      for (const breakpoint of effective) {
        if (breakpoint.index <= writtenThrough) continue;
        const tokens = tokensThrough(breakpoint.index) - tokensThrough(writtenThrough);
        if (breakpoint.ttl === '1h') usage.cache_creation.ephemeral_1h_input_tokens += tokens;
        else usage.cache_creation.ephemeral_5m_input_tokens += tokens;
        usage.cache_creation_input_tokens += tokens;
        pending.push({
          key: keyOf(breakpoint.index),
          ttl: breakpoint.ttl,
          expiresAt: now + TTL_MILLISECONDS[breakpoint.ttl],
        });
        writtenThrough = breakpoint.index;
      }
      usage.input_tokens = prompt.totalTokens - tokensThrough(writtenThrough);

      let published = false;
      return {
        usage,
        toolsSystemHash: prompt.toolsSystemHash,
        breakpoints: breakpoints.map((breakpoint) => ({
          hash: segments[breakpoint.index]!.prefixHash,
          tokens: tokensThrough(breakpoint.index),
          ttl: breakpoint.ttl,
        })),
        publish(): void {
          if (published) return;
          published = true;
          for (const write of pending) {
            const existing = entries.get(write.key);
            if (existing && existing.expiresAt > write.expiresAt) continue;
            entries.set(write.key, { ttl: write.ttl, expiresAt: write.expiresAt });
          }
        },
      };
    },
  };
}
