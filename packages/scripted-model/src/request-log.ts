import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { RequestLogRecord } from './types.js';

/** Options of {@link createRequestLog}. */
export interface RequestLogOptions {
  /** JSONL file to append one line per request to (created with its folder if missing). Memory only when absent. */
  file?: string;
}

/** Where the scripted model records what it received: in memory always, and in a JSONL file when asked. */
export interface RequestLog {
  /** Records one request: keeps it in memory and appends it as one JSON line to the file, synchronously. */
  record(record: RequestLogRecord): void;
  /** Every record so far, in the order recorded (copies: changing them changes nothing). */
  records(): RequestLogRecord[];
  /** Closes the file. Later `record` calls throw; `records()` keeps working. Calling it twice is fine. */
  close(): Promise<void>;
}

const REQUIRED_FIELDS: [keyof RequestLogRecord, string][] = [
  ['index', 'number'],
  ['receivedAt', 'number'],
  ['path', 'string'],
  ['model', 'string'],
  ['stream', 'boolean'],
  ['toolsSystemHash', 'string'],
  ['status', 'number'],
];

function checkRecord(record: RequestLogRecord): void {
  if (typeof record !== 'object' || record === null)
    throw new TypeError('RequestLog.record: expected a RequestLogRecord object');
  for (const [field, type] of REQUIRED_FIELDS) {
    if (typeof record[field] !== type) {
      throw new TypeError(
        `RequestLog.record: field "${field}" must be a ${type}, got ${JSON.stringify(record[field]) ?? 'undefined'}`,
      );
    }
  }
  if (
    !Array.isArray(record.breakpointHashes) ||
    record.breakpointHashes.some((hash) => typeof hash !== 'string')
  ) {
    throw new TypeError('RequestLog.record: field "breakpointHashes" must be an array of strings');
  }
  if (typeof record.usage !== 'object' || record.usage === null)
    throw new TypeError('RequestLog.record: field "usage" must be a CacheUsage object');
}

/**
 * Creates a request log. Each record (index, path, model, stream, the tools+system hash, the
 * canonical prefix hash at each breakpoint, usage, stop reason, fault, status) is kept in memory
 * and, when `file` is given, appended to it as one JSON line at once, so another process can read
 * the file while the server runs.
 */
export function createRequestLog(options: RequestLogOptions = {}): RequestLog {
  const kept: RequestLogRecord[] = [];
  let descriptor: number | undefined;
  let closed = false;
  if (options.file !== undefined) {
    if (typeof options.file !== 'string' || options.file === '')
      throw new TypeError('createRequestLog: "file" must be a non-empty path');
    try {
      mkdirSync(dirname(options.file), { recursive: true });
      descriptor = openSync(options.file, 'a');
    } catch (error) {
      throw new Error(
        `createRequestLog: cannot open the request log "${options.file}" for appending (${(error as Error).message}); pick a writable path`,
        { cause: error },
      );
    }
  }
  return {
    record(record: RequestLogRecord): void {
      if (closed)
        throw new Error(
          `RequestLog.record: the log${options.file ? ` "${options.file}"` : ''} is closed; record before close()`,
        );
      checkRecord(record);
      const copy = structuredClone(record);
      kept.push(copy);
      if (descriptor !== undefined) writeSync(descriptor, `${JSON.stringify(copy)}\n`);
    },
    records(): RequestLogRecord[] {
      return kept.map((record) => structuredClone(record));
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      if (descriptor !== undefined) closeSync(descriptor);
      descriptor = undefined;
    },
  };
}
