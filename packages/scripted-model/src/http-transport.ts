import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import {
  createScriptedModelCore,
  errorResponse,
  type OutgoingResponse,
  type ScriptedModelCore,
  type ScriptedModelOptions,
} from './scripted-model-core.js';
import { ScriptedModelError } from './scripted-model-error.js';
import type { StreamSink } from './stream-writer.js';
import type { ScriptRequest } from './types.js';

/** Options of {@link startScriptedModel}. */
export interface StartScriptedModelOptions extends ScriptedModelOptions {
  /** TCP port; 0 (the default) picks a free one. */
  port?: number;
  /** Interface to listen on (default `127.0.0.1`). */
  host?: string;
  /** Largest request body accepted, in bytes (default 32 MiB, like the real API); larger gets a 413. */
  maximumBodyBytes?: number;
}

/** A running scripted model HTTP server. */
export interface ScriptedModelServer {
  /** Base URL for `new Anthropic({ baseURL })` or `ANTHROPIC_BASE_URL`, e.g. `http://127.0.0.1:41234`. */
  url: string;
  /** Requests received so far, in order. */
  requests(): readonly ScriptRequest[];
  /** Stops listening, aborts every request in flight and closes every connection. */
  close(): Promise<void>;
}

const DEFAULT_MAXIMUM_BODY_BYTES = 32 * 1024 * 1024;

function lowerCaseHeaders(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined)
      headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

function readBody(request: IncomingMessage, maximumBytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maximumBytes) {
        reject(
          new ScriptedModelError({
            status: 413,
            errorType: 'request_too_large',
            message: `request body exceeds ${maximumBytes} bytes`,
          }),
        );
        request.resume();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function httpSink(response: ServerResponse, socket: Socket): StreamSink {
  return {
    write: (bytes) =>
      new Promise((resolve) => {
        if (response.destroyed || response.writableEnded) return resolve();
        response.write(bytes, () => resolve());
      }),
    end: () => {
      if (!response.writableEnded && !response.destroyed) response.end();
    },
    reset: () => {
      if (typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
      else socket.destroy();
    },
  };
}

async function sendResponse(
  outgoing: OutgoingResponse,
  response: ServerResponse,
  socket: Socket,
): Promise<void> {
  if (outgoing.write) {
    response.writeHead(outgoing.status, outgoing.headers);
    response.flushHeaders();
    await outgoing.write(httpSink(response, socket));
    return;
  }
  const text = JSON.stringify(outgoing.json ?? null);
  response.writeHead(outgoing.status, {
    ...outgoing.headers,
    'content-length': String(Buffer.byteLength(text)),
  });
  response.end(text);
}

/**
 * Starts the scripted model (a TEST DOUBLE of the Anthropic Messages API) as an HTTP server on
 * 127.0.0.1. Point the SDK or Claude Code at `url` (`ANTHROPIC_BASE_URL`); every reply comes from
 * `script`.
 */
export async function startScriptedModel(
  options: StartScriptedModelOptions,
): Promise<ScriptedModelServer> {
  const core: ScriptedModelCore = createScriptedModelCore(options);
  const maximumBodyBytes = options.maximumBodyBytes ?? DEFAULT_MAXIMUM_BODY_BYTES;
  const sockets = new Set<Socket>();
  const server = createServer((request, response) => {
    const clientGone = new AbortController();
    response.on('close', () => {
      if (!response.writableFinished) clientGone.abort();
    });
    const socket = request.socket;
    void (async () => {
      let outgoing: OutgoingResponse;
      try {
        const body = await readBody(request, maximumBodyBytes);
        outgoing = await core.handle(
          {
            method: request.method ?? 'GET',
            url: request.url ?? '/',
            headers: lowerCaseHeaders(request),
            body,
          },
          clientGone.signal,
        );
      } catch (error) {
        outgoing = errorResponse(error);
      }
      if (response.destroyed) {
        // The client went away while the script ran: let a writer see its aborted signal and finish.
        if (outgoing.write)
          await outgoing.write({ write: async () => {}, end: () => {}, reset: () => {} });
        return;
      }
      await sendResponse(outgoing, response, socket);
    })().catch((error: unknown) => {
      if (!response.headersSent) {
        const failed = errorResponse(error);
        response.writeHead(failed.status, failed.headers);
        response.end(JSON.stringify(failed.json));
      } else {
        response.destroy();
      }
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const port = options.port ?? 0;
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${shownHost}:${address.port}`,
    requests: () => core.requests(),
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        core.stop();
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
