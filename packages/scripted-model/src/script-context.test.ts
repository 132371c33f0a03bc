import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createScriptContext, ScriptWaitError, waitForFile } from './script-context.js';
import type { ScriptRequest } from './types.js';

function request(index: number): ScriptRequest {
  return {
    index,
    path: '/v1/messages',
    headers: {},
    receivedAt: index,
    body: { model: 'm', max_tokens: 1, messages: [{ role: 'user', content: `request ${index}` }] },
  };
}

let folder: string;
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'script-context-'));
});
afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe('createScriptContext', () => {
  it('shares state and shows the live request list', () => {
    const requests: ScriptRequest[] = [request(0)];
    const state = new Map<string, unknown>();
    const context = createScriptContext({ state, requests });
    context.state.set('seen', 1);
    requests.push(request(1));
    expect(state.get('seen')).toBe(1);
    expect(context.requests.map((item) => item.index)).toEqual([0, 1]);
    expect(createScriptContext({ requests: () => [request(7)] }).requests[0]?.index).toBe(7);
  });

  it('waitFor resolves once the condition holds (sync or async)', async () => {
    const context = createScriptContext();
    let ready = false;
    setTimeout(() => (ready = true), 30);
    await context.waitFor(() => ready, { timeoutMs: 2_000, pollMs: 5, description: 'the flag' });
    await context.waitFor(async () => Promise.resolve(true), {
      timeoutMs: 100,
      description: 'an async yes',
    });
  });

  it('waitFor rejects after the bound with an error naming the wait and the time waited', async () => {
    const context = createScriptContext();
    const started = Date.now();
    const failure = await context
      .waitFor(() => false, {
        timeoutMs: 80,
        pollMs: 10,
        description: 'the lead to create the team',
      })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ScriptWaitError);
    expect((failure as ScriptWaitError).message).toMatch(
      /^Timed out waiting for the lead to create the team: still not true after \d+ ms \(bound 80 ms\)$/,
    );
    expect((failure as ScriptWaitError).reason).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('waitFor stops at once when the signal aborts', async () => {
    const controller = new AbortController();
    const context = createScriptContext({ signal: controller.signal });
    const started = Date.now();
    setTimeout(() => controller.abort(), 20);
    const failure = await context
      .waitFor(() => false, { timeoutMs: 10_000, pollMs: 5_000, description: 'a file' })
      .catch((error: unknown) => error);
    expect((failure as Error).message).toMatch(
      /^Stopped waiting for a file after \d+ ms: the client disconnected or the server stopped$/,
    );
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('refuses unbounded or undescribed waits and reports a throwing condition', async () => {
    const context = createScriptContext();
    await expect(context.waitFor(() => true, { timeoutMs: 0, description: 'x' })).rejects.toThrow(
      /timeoutMs must be a finite number > 0/,
    );
    await expect(
      context.waitFor(() => true, { timeoutMs: Number.POSITIVE_INFINITY, description: 'x' }),
    ).rejects.toThrow(/timeoutMs/);
    await expect(context.waitFor(() => true, { timeoutMs: 10, description: ' ' })).rejects.toThrow(
      /description must say what is awaited/,
    );
    await expect(context.waitFor(() => true, undefined as never)).rejects.toThrow(
      /options \{ timeoutMs, description \} are required/,
    );
    await expect(
      context.waitFor(
        () => {
          throw new Error('boom');
        },
        { timeoutMs: 50, description: 'a broken check' },
      ),
    ).rejects.toThrow('waitFor (a broken check): the condition threw: boom');
  });

  it('waitForRequest returns a request that arrives later, woken by subscribe before its poll', async () => {
    const requests: ScriptRequest[] = [request(0)];
    const listeners = new Set<(incoming: ScriptRequest) => void>();
    const context = createScriptContext({
      requests,
      subscribe: (listener) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    });
    const started = Date.now();
    setTimeout(() => {
      requests.push(request(1));
      for (const listener of listeners) listener(request(1));
    }, 30);
    const found = await context.waitForRequest((incoming) => incoming.index === 1, {
      timeoutMs: 5_000,
      pollMs: 4_000,
      description: 'request 1',
    });
    expect(found.index).toBe(1);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(listeners.size).toBe(0);
  });

  it('waitForRequest times out naming the wait', async () => {
    const context = createScriptContext({ requests: [request(0)] });
    await expect(
      context.waitForRequest(() => false, { timeoutMs: 40, description: "bob's first request" }),
    ).rejects.toThrow(/^Timed out waiting for bob's first request/);
  });
});

describe('waitForFile', () => {
  it('resolves with the content once the file exists and passes `until`', async () => {
    const path = join(folder, 'done.txt');
    setTimeout(() => void writeFile(path, 'half'), 20);
    setTimeout(() => void writeFile(path, 'all done'), 60);
    const content = await waitForFile(path, {
      timeoutMs: 3_000,
      pollMs: 5,
      until: (text) => text.includes('done'),
    });
    expect(content).toBe('all done');
  });

  it('rejects after the bound naming the file, and on abort', async () => {
    const path = join(folder, 'never.txt');
    await expect(waitForFile(path, { timeoutMs: 40 })).rejects.toThrow(
      `Timed out waiting for file ${path}`,
    );
    const controller = new AbortController();
    controller.abort();
    await expect(
      waitForFile(path, { timeoutMs: 5_000, signal: controller.signal }),
    ).rejects.toThrow(/^Stopped waiting for file/);
    await expect(waitForFile('', { timeoutMs: 10 })).rejects.toThrow(
      /path must be a non-empty string/,
    );
  });
});
