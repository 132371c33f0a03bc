import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CLAUDE_CODE_HEADERS,
  openScriptedClient,
  TRANSPORTS,
  type ScriptedClient,
} from './transport-test-support.js';

const body = {
  model: 'claude-test-model',
  max_tokens: 64,
  messages: [{ role: 'user', content: 'hi' }],
};

describe.each(TRANSPORTS)(
  'requests and Anthropic-shaped errors over the %s transport',
  (transport) => {
    let opened: ScriptedClient | undefined;
    afterEach(async () => {
      await opened?.close();
      opened = undefined;
    });
    const open = async () => {
      opened = await openScriptedClient(transport, {
        script: () => ({ content: [{ type: 'text', text: 'ok' }] }),
      });
      return opened;
    };
    const post = (
      client: ScriptedClient,
      path: string,
      headers: Record<string, string>,
      payload: string,
    ) => client.rawFetch(client.baseURL + path, { method: 'POST', headers, body: payload });

    it('streams to Claude Code 2.1.45 style requests: POST /v1/messages?beta=true, x-api-key, 2023-06-01', async () => {
      const client = await open();
      const response = await post(
        client,
        '/v1/messages?beta=true',
        CLAUDE_CODE_HEADERS,
        JSON.stringify({ ...body, stream: true }),
      );
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect(response.headers.get('request-id')).toMatch(/^req_/);
      const text = await response.text();
      const frames = text.split('\n\n').filter((frame) => frame !== '');
      for (const frame of frames) expect(frame).toMatch(/^event: [a-z_]+\ndata: \{.*\}$/);
      expect(frames[0]).toMatch(/^event: message_start\n/);
      expect(frames[1]).toBe('event: ping\ndata: {"type":"ping"}');
      expect(frames.at(-1)).toBe('event: message_stop\ndata: {"type":"message_stop"}');
      expect(client.requests()[0]?.path).toBe('/v1/messages?beta=true');
    });

    it('accepts Authorization: Bearer and refuses a request without credentials with 401 authentication_error', async () => {
      const client = await open();
      const { 'x-api-key': _key, ...withoutKey } = CLAUDE_CODE_HEADERS;
      const bearer = await post(
        client,
        '/v1/messages',
        { ...withoutKey, authorization: 'Bearer abc' },
        JSON.stringify(body),
      );
      expect(bearer.status).toBe(200);
      const missing = await post(client, '/v1/messages', withoutKey, JSON.stringify(body));
      expect(missing.status).toBe(401);
      expect(await missing.json()).toEqual({
        type: 'error',
        error: {
          type: 'authentication_error',
          message: expect.stringContaining('missing credentials'),
        },
      });
    });

    it('checks anthropic-version: missing or unknown is a 400 naming the accepted values', async () => {
      const client = await open();
      const { 'anthropic-version': _version, ...withoutVersion } = CLAUDE_CODE_HEADERS;
      const missing = await post(client, '/v1/messages', withoutVersion, JSON.stringify(body));
      expect(missing.status).toBe(400);
      expect(((await missing.json()) as { error: { message: string } }).error.message).toContain(
        'anthropic-version: header is required',
      );
      const unknown = await post(
        client,
        '/v1/messages',
        { ...CLAUDE_CODE_HEADERS, 'anthropic-version': '1999-01-01' },
        JSON.stringify(body),
      );
      expect(unknown.status).toBe(400);
      expect(((await unknown.json()) as { error: { message: string } }).error.message).toMatch(
        /"1999-01-01".*2023-06-01, 2026-10-21/,
      );
    });

    it('answers unknown routes, wrong methods, bad JSON and missing fields with Anthropic-shaped errors', async () => {
      const client = await open();
      const route = await post(client, '/v1/complete', CLAUDE_CODE_HEADERS, JSON.stringify(body));
      expect(route.status).toBe(404);
      expect(((await route.json()) as { error: { type: string } }).error.type).toBe(
        'not_found_error',
      );
      const method = await client.rawFetch(client.baseURL + '/v1/messages', {
        method: 'GET',
        headers: CLAUDE_CODE_HEADERS,
      });
      expect(method.status).toBe(405);
      expect(await method.json()).toEqual({
        type: 'error',
        error: {
          type: 'invalid_request_error',
          message: 'GET /v1/messages: method not allowed; use POST',
        },
      });
      const json = await post(client, '/v1/messages', CLAUDE_CODE_HEADERS, '{"model":');
      expect(json.status).toBe(400);
      expect(((await json.json()) as { error: { message: string } }).error.message).toMatch(
        /^the request body is not valid JSON/,
      );
      const noModel = await post(
        client,
        '/v1/messages',
        CLAUDE_CODE_HEADERS,
        JSON.stringify({ ...body, model: undefined }),
      );
      expect(((await noModel.json()) as { error: { message: string } }).error.message).toBe(
        'model: Field required (a non-empty string)',
      );
      const error = await client.client.messages
        .create({
          model: 'claude-test-model',
          messages: body.messages,
        } as unknown as Anthropic.MessageCreateParamsNonStreaming)
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(Anthropic.BadRequestError);
      expect((error as InstanceType<typeof Anthropic.BadRequestError>).error).toEqual({
        type: 'error',
        error: { type: 'invalid_request_error', message: 'max_tokens: Field required' },
      });
      expect(client.requests()).toHaveLength(0);
    });

    it('turns a script that throws into a 500 api_error "script failed: …" and keeps serving', async () => {
      opened = await openScriptedClient(transport, {
        script: (request) => {
          if (request.index === 0) throw new Error('sequence exhausted after 0 replies');
          return { content: [{ type: 'text', text: 'second' }] };
        },
      });
      const error = await opened.client.messages
        .create(body as Anthropic.MessageCreateParamsNonStreaming)
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(Anthropic.InternalServerError);
      expect((error as InstanceType<typeof Anthropic.APIError>).message).toContain(
        'script failed: sequence exhausted after 0 replies',
      );
      const message = await opened.client.messages.create(
        body as Anthropic.MessageCreateParamsNonStreaming,
      );
      expect(message.content).toEqual([{ type: 'text', text: 'second' }]);
    });
  },
);
