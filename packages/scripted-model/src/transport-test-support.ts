import Anthropic from '@anthropic-ai/sdk';
import { createScriptedFetch } from './fetch-transport.js';
import { startScriptedModel } from './http-transport.js';
import type { ScriptedModelOptions } from './scripted-model-core.js';
import type { ScriptRequest } from './types.js';

/** The two transports every SDK test runs against. */
export const TRANSPORTS = ['http', 'fetch'] as const;

/** One of TRANSPORTS. */
export type Transport = (typeof TRANSPORTS)[number];

/** A real SDK client wired to a scripted model over one transport. */
export interface ScriptedClient {
  client: Anthropic;
  baseURL: string;
  /** Sends a raw request through the same transport (for what the SDK cannot send). */
  rawFetch: typeof fetch;
  requests(): readonly ScriptRequest[];
  close(): Promise<void>;
}

/** Opens a real `@anthropic-ai/sdk` client against the scripted model over `transport`. */
export async function openScriptedClient(
  transport: Transport,
  options: ScriptedModelOptions,
  clientOptions: { maxRetries?: number; timeout?: number } = {},
): Promise<ScriptedClient> {
  const common = {
    apiKey: 'test-key',
    maxRetries: clientOptions.maxRetries ?? 0,
    timeout: clientOptions.timeout ?? 10_000,
  };
  if (transport === 'http') {
    const server = await startScriptedModel(options);
    return {
      client: new Anthropic({ ...common, baseURL: server.url }),
      baseURL: server.url,
      rawFetch: fetch,
      requests: () => server.requests(),
      close: () => server.close(),
    };
  }
  const scriptedFetch = createScriptedFetch(options);
  const baseURL = 'http://scripted-model.invalid';
  return {
    client: new Anthropic({ ...common, baseURL, fetch: scriptedFetch }),
    baseURL,
    rawFetch: scriptedFetch,
    requests: () => scriptedFetch.requests(),
    close: async () => scriptedFetch.stop(),
  };
}

/** Headers Claude Code 2.1.45 sends (its bundled SDK 0.74): x-api-key and anthropic-version 2023-06-01. */
export const CLAUDE_CODE_HEADERS: Record<string, string> = {
  'content-type': 'application/json',
  'x-api-key': 'test-key',
  'anthropic-version': '2023-06-01',
  'anthropic-beta': 'claude-code-20250219,prompt-caching-scope-2026-01-05',
  'x-app': 'cli',
  'user-agent': 'claude-cli/2.1.45 (external, sdk-cli)',
};
