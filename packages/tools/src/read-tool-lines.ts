// Streams the lines of a text file through a fixed buffer: however large the file, or however
// long one of its lines, memory stays at one chunk plus the lines returned.
import { createHash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { ToolError } from '@muster/query';

/** Bytes read per `read()` call. */
const CHUNK_BYTES = 64 * 1024;
/** How many leading bytes are checked for NUL to tell binary files from text. */
export const BINARY_PROBE_BYTES = 8 * 1024;

/** What `readLineWindow` reads. */
export interface LineWindowOptions {
  /** First line to return (1-based). */
  offset: number;
  /** How many lines to return at most. */
  limit: number;
  /** Longer lines are cut to this many characters (UTF-16 code units). */
  maxLineChars: number;
  /** Stop adding lines once the formatted output would pass this many characters. */
  maxOutputChars: number;
  /** Checked between chunks; an aborted read throws `ToolError('ABORTED')`. */
  signal: AbortSignal;
}

/** The lines read, and what is known about the rest of the file. */
export interface LineWindow {
  /** The lines returned, in order, without their line ending (cut to `maxLineChars`). */
  lines: string[];
  /** Line number of `lines[0]` (equals `offset`). */
  firstLine: number;
  /** How many of the returned lines were cut. */
  cutLines: number;
  /** True when the whole file was scanned (so `totalLines` and `hash` are known). */
  reachedEnd: boolean;
  /** True when the file has lines after the last one returned. */
  moreLines: boolean;
  /** Number of lines in the file, when `reachedEnd`. */
  totalLines?: number;
  /** SHA-256 of the whole content, when `reachedEnd`. */
  hash?: string;
  /** True when lines stopped because of `maxOutputChars` (not `limit`). */
  outputCapped: boolean;
  /** True when the first bytes hold a NUL byte (nothing else is read then). */
  binary: boolean;
}

/** Reads lines `offset … offset+limit-1` of an open file, scanning from its start. */
export async function readLineWindow(
  handle: FileHandle,
  options: LineWindowOptions,
): Promise<LineWindow> {
  const buffer = Buffer.alloc(CHUNK_BYTES);
  const hash = createHash('sha256');
  const maxLineBytes = options.maxLineChars * 4 + 4;
  const lines: string[] = [];
  let outputChars = 0;
  let cutLines = 0;
  let lineNumber = 1;
  let lineParts: Buffer[] = [];
  let lineBytes = 0;
  let lineOverflow = false;
  let lineHasBytes = false;
  let position = 0;
  let stopped: 'limit' | 'output' | undefined;
  let bomChecked = false;

  const finishLine = (): void => {
    if (lineNumber >= options.offset) {
      let text = Buffer.concat(lineParts, lineBytes).toString('utf8');
      if (!bomChecked && lineNumber === 1 && text.startsWith('\uFEFF')) text = text.slice(1);
      if (!lineOverflow && text.endsWith('\r')) text = text.slice(0, -1);
      let cut = lineOverflow;
      if (text.length > options.maxLineChars) {
        text = text.slice(0, options.maxLineChars);
        cut = true;
      }
      if (cut) {
        if (/[\uD800-\uDBFF]$/u.test(text)) text = text.slice(0, -1);
        cutLines += 1;
      }
      const formattedLength = text.length + 8;
      if (lines.length > 0 && outputChars + formattedLength > options.maxOutputChars) {
        stopped = 'output';
      } else {
        lines.push(text);
        outputChars += formattedLength;
        if (lines.length >= options.limit) stopped = 'limit';
      }
    }
    bomChecked = true;
    lineNumber += 1;
    lineParts = [];
    lineBytes = 0;
    lineOverflow = false;
    lineHasBytes = false;
  };

  const keep = (chunk: Buffer): void => {
    lineHasBytes = lineHasBytes || chunk.length > 0;
    if (lineNumber < options.offset || lineOverflow) return;
    const room = maxLineBytes - lineBytes;
    if (chunk.length > room) {
      lineOverflow = true;
      chunk = chunk.subarray(0, room);
    }
    // Copy: the read buffer is reused for the next chunk.
    lineParts.push(Buffer.from(chunk));
    lineBytes += chunk.length;
  };

  let probing = false;
  for (;;) {
    if (options.signal.aborted) {
      throw new ToolError('Read was interrupted before it finished.', 'ABORTED');
    }
    const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, position);
    if (position === 0 && buffer.subarray(0, Math.min(bytesRead, BINARY_PROBE_BYTES)).includes(0)) {
      return {
        lines: [],
        firstLine: options.offset,
        cutLines: 0,
        reachedEnd: false,
        moreLines: false,
        outputCapped: false,
        binary: true,
      };
    }
    if (bytesRead === 0) break;
    if (probing) return window(true);
    position += bytesRead;
    const chunk = buffer.subarray(0, bytesRead);
    hash.update(chunk);
    let start = 0;
    while (stopped === undefined) {
      const newline = chunk.indexOf(0x0a, start);
      if (newline === -1) break;
      keep(chunk.subarray(start, newline));
      lineHasBytes = true;
      finishLine();
      start = newline + 1;
    }
    if (stopped === 'output' || (stopped === 'limit' && start < chunk.length)) return window(true);
    // `limit` reached exactly at the end of a chunk: one more read tells whether anything follows.
    if (stopped === 'limit') probing = true;
    else keep(chunk.subarray(start));
  }
  if (lineHasBytes) finishLine();
  return {
    lines,
    firstLine: options.offset,
    cutLines,
    reachedEnd: true,
    totalLines: lineNumber - 1,
    hash: hash.digest('hex'),
    moreLines: stopped === 'output',
    outputCapped: stopped === 'output',
    binary: false,
  };

  function window(moreLines: boolean): LineWindow {
    return {
      lines,
      firstLine: options.offset,
      cutLines,
      reachedEnd: false,
      moreLines,
      outputCapped: stopped === 'output',
      binary: false,
    };
  }
}
