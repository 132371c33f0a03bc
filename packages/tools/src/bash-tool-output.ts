// Reading a command's output file for the model: never the whole file when it is large,
// cut in the middle (the start and the end are what a model needs), with a note saying so.
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';

/** A command's output as the model gets it. */
export interface CappedOutput {
  /** The text (trailing newlines removed), with a note in the middle when cut. */
  text: string;
  /** Bytes of output read (from `fromByte` to the end of the file). */
  bytes: number;
  /** Whether the middle was cut. */
  truncated: boolean;
  /** The file size when read (where the next incremental read starts). */
  endByte: number;
}

/** Skips UTF-8 continuation bytes at the start so decoding begins on a character. */
function fromCharacterBoundary(buffer: Buffer): Buffer {
  let start = 0;
  while (start < buffer.length && start < 4 && (buffer[start]! & 0xc0) === 0x80) start += 1;
  return buffer.subarray(start);
}

async function readRange(
  handle: import('node:fs/promises').FileHandle,
  position: number,
  length: number,
): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  const { bytesRead } = await handle.read(buffer, 0, length, position);
  return buffer.subarray(0, bytesRead);
}

function cutNote(omittedBytes: string, totalBytes: number): string {
  return `\n\n[… ${omittedBytes} of ${totalBytes} bytes of output cut from the middle …]\n\n`;
}

/**
 * Reads `outputPath` from `fromByte` on (never through a symbolic link), keeping at most
 * `maxChars` characters: when longer, the first and last halves with a note between them.
 * A large file is never loaded whole: only its two ends are read.
 */
export async function readCappedOutput(
  outputPath: string,
  maxChars: number,
  fromByte = 0,
): Promise<CappedOutput> {
  const handle = await open(outputPath, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const size = (await handle.stat()).size;
    const bytes = Math.max(0, size - fromByte);
    // A UTF-8 character takes at most 4 bytes: within this many bytes the text may fit whole.
    const wholeLimit = maxChars * 4;
    if (bytes <= wholeLimit) {
      const text = (await readRange(handle, fromByte, bytes)).toString('utf8').replace(/\n+$/, '');
      if (text.length <= maxChars) return { text, bytes, truncated: false, endByte: size };
      const half = Math.floor(maxChars / 2);
      const head = text.slice(0, half);
      const tail = text.slice(text.length - half);
      const omitted = Buffer.byteLength(text.slice(half, text.length - half));
      return {
        text: head + cutNote(String(omitted), bytes) + tail,
        bytes,
        truncated: true,
        endByte: size,
      };
    }
    const half = Math.floor(maxChars / 2);
    const headBytes = await readRange(handle, fromByte, half * 4);
    const tailBytes = fromCharacterBoundary(await readRange(handle, size - half * 4, half * 4));
    const headText = headBytes.toString('utf8');
    const head = headText.slice(0, half);
    const tailText = tailBytes.toString('utf8').replace(/\n+$/, '');
    const tail = tailText.slice(Math.max(0, tailText.length - half));
    const omitted = bytes - Buffer.byteLength(head) - Buffer.byteLength(tail);
    return {
      text: head + cutNote(String(omitted), bytes) + tail,
      bytes,
      truncated: true,
      endByte: size,
    };
  } finally {
    await handle.close();
  }
}
