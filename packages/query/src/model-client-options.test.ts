// createModelClient's options: credentials and base URL from the environment as the SDK reads
// them, clear refusals of bad options, and the turn-level backoff formula.
import { createScriptedFetch, text } from '@muster/scripted-model';
import { MusterError } from '@muster/protocol';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createModelClient } from './model-client.js';
import { MAX_RETRY_DELAY_MS, retryDelayMs } from './model-client-options.js';
import { QUESTION } from './model-client-test-support.js';
import type { ModelClientOptions } from './model-types.js';

/** A scripted fetch that also records the URL of every request. */
function recordingFetch() {
  const scriptedFetch = createScriptedFetch({ script: () => text('ok') });
  const urls: string[] = [];
  const fetchFunction = ((input: string | URL | Request, init?: RequestInit) => {
    urls.push(input instanceof Request ? input.url : String(input));
    return scriptedFetch(input, init);
  }) as typeof fetch;
  return { fetchFunction, urls, scriptedFetch };
}

function refusal(options: unknown): Error {
  try {
    createModelClient(options as ModelClientOptions);
  } catch (error) {
    return error as Error;
  }
  throw new Error('createModelClient accepted the options');
}

describe('createModelClient options', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('without apiKey and without ANTHROPIC_API_KEY: INVALID_OPTIONS saying to set it, not an SDK error', () => {
    vi.stubEnv('ANTHROPIC_API_KEY', '');
    vi.stubEnv('ANTHROPIC_AUTH_TOKEN', '');
    const error = refusal({ baseURL: 'http://scripted-model.invalid' });
    expect(MusterError.hasCode(error, 'INVALID_OPTIONS')).toBe(true);
    expect(error.message).toContain('Set ANTHROPIC_API_KEY');
    expect(error.message).toContain('apiKey');
  });

  it('reads ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL as the SDK does; options win over them', async () => {
    vi.stubEnv('ANTHROPIC_API_KEY', 'sk-from-environment');
    vi.stubEnv('ANTHROPIC_BASE_URL', 'http://from-environment.invalid');
    const fromEnvironment = recordingFetch();
    const client = createModelClient({ fetch: fromEnvironment.fetchFunction });
    await client.stream(QUESTION, { signal: new AbortController().signal });
    expect(fromEnvironment.urls[0]).toMatch(/^http:\/\/from-environment\.invalid\/v1\/messages/);
    expect(fromEnvironment.scriptedFetch.requests()[0]?.headers.authorization).toBe(
      'Bearer sk-from-environment',
    );

    const fromOptions = recordingFetch();
    const given = createModelClient({
      fetch: fromOptions.fetchFunction,
      apiKey: 'sk-given',
      baseURL: 'http://given.invalid',
      defaultHeaders: { 'x-muster-test': 'yes' },
    });
    await given.stream(QUESTION, { signal: new AbortController().signal });
    expect(fromOptions.urls[0]).toMatch(/^http:\/\/given\.invalid\/v1\/messages/);
    const [request] = fromOptions.scriptedFetch.requests();
    expect(request?.headers.authorization).toBe('Bearer sk-given');
    expect(request?.headers['x-muster-test']).toBe('yes');
  });

  it.each([
    [{ apiKey: '' }, 'apiKey'],
    [{ apiKey: 'k', baseURL: 'not a url' }, 'baseURL'],
    [{ apiKey: 'k', baseURL: 'ftp://example.com' }, 'baseURL'],
    [{ apiKey: 'k', fetch: 'fetch' }, 'fetch'],
    [{ apiKey: 'k', maxRetries: -1 }, 'maxRetries'],
    [{ apiKey: 'k', maxRetries: 1.5 }, 'maxRetries'],
    [{ apiKey: 'k', streamIdleMs: 0 }, 'streamIdleMs'],
    [{ apiKey: 'k', streamIdleMs: Number.POSITIVE_INFINITY }, 'streamIdleMs'],
    [{ apiKey: 'k', streamRetries: -1 }, 'streamRetries'],
    [{ apiKey: 'k', retryBaseMs: -5 }, 'retryBaseMs'],
    [{ apiKey: 'k', defaultHeaders: { 'x-a': 1 } }, 'defaultHeaders'],
    ['options', 'options'],
  ])('refuses %j naming %s and what it must be', (options, option) => {
    const error = refusal(options);
    expect(MusterError.hasCode(error, 'INVALID_OPTIONS')).toBe(true);
    expect(error.message).toContain(option);
    expect(error.message).toMatch(/must be/);
  });
});

describe('retryDelayMs', () => {
  it('is min(base · 2^n, 8 s) × (1 − rand · 0.25)', () => {
    expect(retryDelayMs(0, 500, () => 0)).toBe(500);
    expect(retryDelayMs(1, 500, () => 0)).toBe(1000);
    expect(retryDelayMs(3, 500, () => 0)).toBe(4000);
    expect(retryDelayMs(4, 500, () => 0)).toBe(MAX_RETRY_DELAY_MS);
    expect(retryDelayMs(20, 500, () => 0)).toBe(MAX_RETRY_DELAY_MS);
    expect(retryDelayMs(1, 500, () => 1)).toBe(750);
    expect(retryDelayMs(2, 500, () => 0.5)).toBe(1750);
  });
});
