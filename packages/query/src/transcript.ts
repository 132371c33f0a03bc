// An agent's transcript: one JSON line per message, appended synchronously as it happens, so a
// crash loses at most the message in flight. Every line is redacted before it is written.
import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  mkdirSync,
  openSync,
  readSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import type { ConversationMessage, TokenUsage } from './agent-types.js';
import { QueryError } from './query-error.js';
import type { ToolAgentIdentity } from './tool.js';

/** The first line of a transcript: whose conversation it is. */
export interface TranscriptAgentEntry {
  type: 'agent';
  identity: ToolAgentIdentity;
  model: string;
  /** ISO 8601 time the line was written. */
  at: string;
}

/** One message of the conversation, exactly as sent to or received from the API. */
export interface TranscriptMessageEntry {
  type: 'message';
  role: ConversationMessage['role'];
  content: ConversationMessage['content'];
  at: string;
  /** The API's request id (assistant messages). */
  requestId?: string;
  /** The request's usage (assistant messages). */
  usage?: TokenUsage;
  /** The response's stop reason (assistant messages). */
  stopReason?: string | null;
}

/**
 * The conversation was compacted: the message lines that follow are the whole new conversation
 * (the ones before it no longer count when the transcript is read back).
 */
export interface TranscriptCompactionEntry {
  type: 'compaction';
  summary: string;
  at: string;
  tokensBefore?: number;
  tokensAfter?: number;
}

/** A line of a transcript. */
export type TranscriptEntry =
  TranscriptAgentEntry | TranscriptMessageEntry | TranscriptCompactionEntry;

/** What `Transcript.append` takes: an entry whose `at` defaults to now. */
export type TranscriptEntryInput =
  | (Omit<TranscriptAgentEntry, 'at'> & { at?: string })
  | (Omit<TranscriptMessageEntry, 'at'> & { at?: string })
  | (Omit<TranscriptCompactionEntry, 'at'> & { at?: string });

/** Options of `createTranscript`. */
export interface TranscriptOptions {
  /** Applied to every string of every entry before it is written (`createSecretRedactor`). */
  redact: (text: string) => string;
}

/** An open transcript file. */
export interface Transcript {
  /** The file's absolute path. */
  readonly path: string;
  /** Writes one entry as one line, synchronously. Throws `TRANSCRIPT_FAILED` when it cannot. */
  append(entry: TranscriptEntryInput): void;
  /** Closes the file; later appends throw. Safe to call twice. */
  close(): void;
}

function failed(message: string, cause?: unknown): QueryError {
  const reason = cause instanceof Error ? `: ${cause.message}` : '';
  return new QueryError({ code: 'TRANSCRIPT_FAILED', message: `${message}${reason}` });
}

/** A copy of a JSON value with every string passed through `redact` (key order kept). */
function redactValue(value: unknown, redact: (text: string) => string): unknown {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) return value.map((item) => redactValue(item, redact));
  if (typeof value === 'object' && value !== null) {
    const copy: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) copy[key] = redactValue(inner, redact);
    return copy;
  }
  return value;
}

function checkEntry(entry: TranscriptEntryInput, file: string): void {
  const where = `Transcript ${file}`;
  if (typeof entry !== 'object' || entry === null) {
    throw failed(`${where}: an entry must be an object with a "type", got ${String(entry)}`);
  }
  switch (entry.type) {
    case 'agent':
      if (typeof entry.model !== 'string' || typeof entry.identity?.name !== 'string') {
        throw failed(`${where}: an "agent" entry needs identity { name, id } and model`);
      }
      return;
    case 'message':
      if (
        !['user', 'assistant', 'system'].includes(entry.role) ||
        (typeof entry.content !== 'string' && !Array.isArray(entry.content))
      ) {
        throw failed(
          `${where}: a "message" entry needs role "user" or "assistant" and content (a string or blocks)`,
        );
      }
      return;
    case 'compaction':
      if (typeof entry.summary !== 'string') {
        throw failed(`${where}: a "compaction" entry needs a summary string`);
      }
      return;
    default:
      throw failed(
        `${where}: unknown entry type ${JSON.stringify((entry as { type?: unknown }).type)}; use "agent", "message" or "compaction"`,
      );
  }
}

/** Whether the last byte of the open file is a newline (true for an empty file). */
function endsWithNewline(descriptor: number): boolean {
  const { size } = fstatSync(descriptor);
  if (size === 0) return true;
  const last = Buffer.alloc(1);
  readSync(descriptor, last, 0, 1, size - 1);
  return last[0] === 0x0a;
}

function writeAll(descriptor: number, text: string): void {
  const bytes = Buffer.from(text, 'utf8');
  let written = 0;
  while (written < bytes.length) {
    written += writeSync(descriptor, bytes, written, bytes.length - written);
  }
}

/**
 * Opens (creating it and its folder when absent) a transcript file for appending, mode 0o600,
 * refusing a symbolic link. When the file ends with a torn line (a crash mid-write), a newline
 * is added first so the next entry starts on a line of its own. Throws `TRANSCRIPT_FAILED`
 * naming the file when it cannot be opened, `INVALID_OPTIONS` for a bad path or `redact`.
 */
export function createTranscript(file: string, options: TranscriptOptions): Transcript {
  if (typeof file !== 'string' || file === '' || file.includes('\0')) {
    throw new QueryError({
      code: 'INVALID_OPTIONS',
      message: `createTranscript: the path must be a non-empty file path, got ${JSON.stringify(file)}`,
    });
  }
  if (typeof options?.redact !== 'function') {
    throw new QueryError({
      code: 'INVALID_OPTIONS',
      message:
        'createTranscript: options.redact must be a function (createSecretRedactor([apiKey, …]), or (text) => text when there is nothing to hide)',
    });
  }
  const absolute = path.resolve(file);
  const { redact } = options;
  let descriptor: number | undefined;
  try {
    mkdirSync(path.dirname(absolute), { recursive: true, mode: 0o700 });
    descriptor = openSync(
      absolute,
      constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW,
      0o600,
    );
    fchmodSync(descriptor, 0o600);
    if (!endsWithNewline(descriptor)) writeAll(descriptor, '\n');
  } catch (error) {
    if (descriptor !== undefined) closeSync(descriptor);
    throw failed(
      `Cannot open the transcript ${absolute} for appending (check the folder's permissions; a symbolic link is refused)`,
      error,
    );
  }
  let open: number | undefined = descriptor;

  return {
    path: absolute,
    append(entry: TranscriptEntryInput): void {
      if (open === undefined) {
        throw failed(`Transcript ${absolute} is closed; open it again with createTranscript`);
      }
      checkEntry(entry, absolute);
      const line = JSON.stringify(
        redactValue({ ...entry, at: entry.at ?? new Date().toISOString() }, redact),
      );
      try {
        writeAll(open, `${line}\n`);
      } catch (error) {
        throw failed(`Cannot append to the transcript ${absolute}`, error);
      }
    },
    close(): void {
      if (open === undefined) return;
      const closing = open;
      open = undefined;
      closeSync(closing);
    },
  };
}
