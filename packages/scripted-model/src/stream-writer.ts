import type { SeededRandom } from './seeded-random.js';
import type { StreamFrame } from './stream-frames.js';
import type { Fault, StreamShape } from './types.js';

/** Where a transport lets the writer put bytes. */
export interface StreamSink {
  /** Writes bytes; resolves when the transport accepted them. */
  write(bytes: Uint8Array): Promise<void>;
  /** Ends the body normally. */
  end(): void;
  /** Breaks the connection abruptly (a reset socket, or an errored fetch body). */
  reset(): void;
}

/** How a streamed reply ended on the wire. */
export type StreamEnding = 'complete' | 'stream-error' | 'socket-reset' | 'aborted';

/** Encodes one frame: `event: <name>` and `data: <json>` lines and a blank line, LF or CRLF. */
export function encodeFrame(frame: StreamFrame, lineEnding: 'lf' | 'crlf' = 'lf'): Uint8Array {
  const newline = lineEnding === 'crlf' ? '\r\n' : '\n';
  return Buffer.from(
    `event: ${frame.event}${newline}data: ${JSON.stringify(frame.data)}${newline}${newline}`,
    'utf8',
  );
}

/** Resolves after `milliseconds`, or at once when `signal` aborts. */
export function pause(milliseconds: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted || milliseconds <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, milliseconds);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** Resolves when `signal` aborts. */
export function untilAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) =>
    signal.addEventListener('abort', () => resolve(), { once: true }),
  );
}

/** What writeStream needs besides the frames. */
export interface WriteStreamOptions {
  sink: StreamSink;
  shape?: StreamShape;
  fault?: Fault;
  random: SeededRandom;
  signal: AbortSignal;
  /** Called once the message_start frame has been handed to the transport in full. */
  onMessageStart?: () => void;
}

async function writeFrame(frame: StreamFrame, options: WriteStreamOptions): Promise<void> {
  const { sink, shape = {}, random, signal } = options;
  const bytes = encodeFrame(frame, shape.lineEnding);
  if (!shape.chunkBytes) {
    await pause(shape.latencyPerChunkMs ?? 0, signal);
    if (!signal.aborted) await sink.write(bytes);
    return;
  }
  const minimum = Math.max(1, shape.chunkBytes.min);
  const maximum = Math.max(minimum, shape.chunkBytes.max);
  for (let start = 0; start < bytes.length && !signal.aborted;) {
    const size = random.integer(minimum, maximum);
    await pause(shape.latencyPerChunkMs ?? 0, signal);
    if (signal.aborted) return;
    await sink.write(bytes.subarray(start, start + size));
    start += size;
  }
}

/**
 * Writes a streamed reply's frames through `sink`, applying the faults that act on the wire:
 * pings only for a while first, silence after the headers, an `event: error` or a reset socket
 * after `afterEvents` frames (pings and made-up events count), chunking, CRLF and latency.
 */
export async function writeStream(
  frames: StreamFrame[],
  options: WriteStreamOptions,
): Promise<StreamEnding> {
  const { sink, fault, signal } = options;
  if (fault?.kind === 'silence-after-headers') {
    await untilAborted(signal);
    sink.end();
    return 'aborted';
  }
  if (fault?.kind === 'pings-only') {
    const interval = Math.max(1, fault.intervalMs ?? Math.min(1000, fault.durationMs));
    const until = Date.now() + fault.durationMs;
    while (!signal.aborted && Date.now() < until) {
      await writeFrame({ event: 'ping', data: { type: 'ping' } }, options);
      await pause(Math.min(interval, until - Date.now()), signal);
    }
  }
  let written = 0;
  for (const frame of frames) {
    if (signal.aborted) {
      sink.end();
      return 'aborted';
    }
    if (fault?.kind === 'stream-error' && written === fault.afterEvents) {
      const error = {
        type: 'error',
        error: { type: fault.errorType, message: fault.message ?? defaultMessage(fault.errorType) },
      };
      await writeFrame({ event: 'error', data: error }, options);
      sink.end();
      return 'stream-error';
    }
    if (fault?.kind === 'socket-reset' && written === fault.afterEvents) {
      sink.reset();
      return 'socket-reset';
    }
    await writeFrame(frame, options);
    written += 1;
    if (frame.event === 'message_start') options.onMessageStart?.();
  }
  if (fault?.kind === 'stream-error' || fault?.kind === 'socket-reset') {
    // afterEvents is past the last frame: the fault still happens, at the very end.
    if (fault.kind === 'socket-reset') {
      sink.reset();
      return 'socket-reset';
    }
    const error = {
      type: 'error',
      error: { type: fault.errorType, message: fault.message ?? defaultMessage(fault.errorType) },
    };
    await writeFrame({ event: 'error', data: error }, options);
    sink.end();
    return 'stream-error';
  }
  sink.end();
  return signal.aborted ? 'aborted' : 'complete';
}

/** The real API's message for an error type. */
export function defaultMessage(errorType: string): string {
  switch (errorType) {
    case 'overloaded_error':
      return 'Overloaded';
    case 'rate_limit_error':
      return 'Number of request tokens has exceeded your per-minute rate limit';
    case 'api_error':
      return 'Internal server error';
    default:
      return errorType.replace(/_/g, ' ');
  }
}
