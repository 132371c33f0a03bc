import { ScriptedModelError } from './scripted-model-error.js';
import type { MessagesRequestBody } from './types.js';

/** The `anthropic-version` values accepted: Claude Code 2.1.45 (SDK 0.74) and `@anthropic-ai/sdk` 1.x. */
export const ACCEPTED_ANTHROPIC_VERSIONS: readonly string[] = ['2023-06-01', '2026-10-21'];

/** The two routes the scripted model answers. */
export type ScriptedRoute = 'messages' | 'count_tokens';

const ROUTES: Record<string, ScriptedRoute> = {
  '/v1/messages': 'messages',
  '/v1/messages/count_tokens': 'count_tokens',
};

function invalid(message: string): ScriptedModelError {
  return new ScriptedModelError({ status: 400, errorType: 'invalid_request_error', message });
}

/** Which route a method and URL (path and query) name; throws 404/405 Anthropic-shaped errors otherwise. */
export function routeOf(method: string, url: string): { route: ScriptedRoute; path: string } {
  const path = new URL(url, 'http://scripted-model.invalid').pathname;
  const route = ROUTES[path];
  if (route === undefined) {
    throw new ScriptedModelError({
      status: 404,
      errorType: 'not_found_error',
      message: `${method} ${path}: no such route on the scripted model (test double); it answers POST /v1/messages and POST /v1/messages/count_tokens`,
    });
  }
  if (method !== 'POST') {
    throw new ScriptedModelError({
      status: 405,
      errorType: 'invalid_request_error',
      message: `${method} ${path}: method not allowed; use POST`,
    });
  }
  return { route, path };
}

/** Checks the credentials (`x-api-key` or `Authorization: Bearer`) and `anthropic-version`. */
export function checkHeaders(headers: Readonly<Record<string, string>>): void {
  const apiKey = headers['x-api-key'];
  const authorization = headers['authorization'];
  const bearer = authorization?.match(/^Bearer\s+(\S.*)$/i);
  if (!(apiKey && apiKey.trim() !== '') && !bearer) {
    throw new ScriptedModelError({
      status: 401,
      errorType: 'authentication_error',
      message:
        authorization !== undefined
          ? 'invalid authorization header: expected "Authorization: Bearer <key>" (any key works on the scripted model)'
          : 'missing credentials: send an x-api-key header or "Authorization: Bearer <key>" (any key works on the scripted model)',
    });
  }
  const version = headers['anthropic-version'];
  if (version === undefined || version === '') {
    throw invalid(
      `anthropic-version: header is required (send one of ${ACCEPTED_ANTHROPIC_VERSIONS.join(', ')})`,
    );
  }
  if (!ACCEPTED_ANTHROPIC_VERSIONS.includes(version)) {
    throw invalid(
      `anthropic-version: ${JSON.stringify(version)} is not a version the scripted model speaks; send one of ${ACCEPTED_ANTHROPIC_VERSIONS.join(', ')}`,
    );
  }
}

/** Parses and checks a request body for `route`; throws a 400 naming the first thing wrong. */
export function parseBody(text: string, route: ScriptedRoute): MessagesRequestBody {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw invalid(`the request body is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw invalid('the request body must be a JSON object');
  }
  const body = parsed as Record<string, unknown>;
  if (typeof body.model !== 'string' || body.model === '') {
    throw invalid('model: Field required (a non-empty string)');
  }
  if (route === 'messages') {
    if (body.max_tokens === undefined) throw invalid('max_tokens: Field required');
    if (
      typeof body.max_tokens !== 'number' ||
      !Number.isInteger(body.max_tokens) ||
      body.max_tokens < 0
    ) {
      throw invalid(
        `max_tokens: must be a non-negative integer, got ${JSON.stringify(body.max_tokens)}`,
      );
    }
    if (body.stream !== undefined && typeof body.stream !== 'boolean') {
      throw invalid(`stream: must be a boolean, got ${JSON.stringify(body.stream)}`);
    }
  }
  if (!Array.isArray(body.messages)) throw invalid('messages: Field required (an array)');
  if (body.system !== undefined && typeof body.system !== 'string' && !Array.isArray(body.system)) {
    throw invalid('system: must be a string or an array of text blocks');
  }
  if (body.tools !== undefined && !Array.isArray(body.tools))
    throw invalid('tools: must be an array');
  return body as MessagesRequestBody;
}
