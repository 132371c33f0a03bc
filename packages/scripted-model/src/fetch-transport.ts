import { createScriptedModelCore, type ScriptedModelOptions } from './scripted-model-core.js';
import type { ScriptRequest } from './types.js';

/** A `fetch` replacement answered by the scripted model; it also exposes the requests it received. */
export type ScriptedFetch = typeof fetch & {
  /** Aborts every request in flight (their scripts' signals and silences). */
  stop(): void;
  /** Requests received so far, in order. */
  requests(): readonly ScriptRequest[];
};

function abortError(): DOMException {
  return new DOMException('This operation was aborted', 'AbortError');
}

/**
 * Creates a `fetch` that answers Messages API requests from `script` without any socket — for
 * `new Anthropic({ fetch, baseURL: 'http://scripted-model.invalid', apiKey: 'test' })` in
 * in-process tests. It shares the HTTP server's event generator, faults and errors; a reset
 * socket becomes a body that fails with `TypeError: terminated`, as Node's fetch reports it.
 */
export function createScriptedFetch(options: ScriptedModelOptions): ScriptedFetch {
  const core = createScriptedModelCore(options);
  const scriptedFetch = async (
    input: string | URL | Request,
    init?: RequestInit,
  ): Promise<Response> => {
    const request = new Request(input, init);
    const signal = init?.signal ?? request.signal;
    if (signal?.aborted) throw abortError();
    const url = new URL(request.url);
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      headers[name.toLowerCase()] = value;
    });
    const body = request.body ? await request.text() : '';
    const clientGone = new AbortController();
    const onAbort = (): void => clientGone.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    const outgoing = await core.handle(
      { method: request.method, url: url.pathname + url.search, headers, body },
      clientGone.signal,
    );
    if (signal?.aborted) {
      if (outgoing.write)
        void outgoing.write({ write: async () => {}, end: () => {}, reset: () => {} });
      throw abortError();
    }
    if (!outgoing.write) {
      signal?.removeEventListener('abort', onAbort);
      return new Response(JSON.stringify(outgoing.json ?? null), {
        status: outgoing.status,
        headers: outgoing.headers,
      });
    }
    const write = outgoing.write;
    let finished = false;
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        const fail = (error: unknown): void => {
          if (finished) return;
          finished = true;
          controller.error(error);
        };
        signal?.addEventListener('abort', () => fail(abortError()), { once: true });
        void write({
          write: async (bytes) => {
            if (!finished) controller.enqueue(new Uint8Array(bytes));
          },
          end: () => {
            if (finished) return;
            finished = true;
            controller.close();
          },
          reset: () =>
            fail(
              new TypeError('terminated', {
                cause: new Error('other side closed (scripted socket reset)'),
              }),
            ),
        }).finally(() => signal?.removeEventListener('abort', onAbort));
      },
      cancel() {
        finished = true;
        clientGone.abort();
      },
    });
    return new Response(stream, { status: outgoing.status, headers: outgoing.headers });
  };
  return Object.assign(scriptedFetch as typeof fetch, {
    stop: () => core.stop(),
    requests: () => core.requests(),
  });
}
