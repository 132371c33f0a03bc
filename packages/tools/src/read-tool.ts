// Read: the lines of a text file with `cat -n` line numbers, or an image as an image block.
// Large files are streamed (never loaded whole); what the agent saw is recorded so Write and
// Edit can refuse to change what it has not read.
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Tool, ToolContext, ToolResult } from '@muster/query';
import { ToolError } from '@muster/query';
import { z } from 'zod';
import { fileReadState, hashContent } from './file-read-state.js';
import { readLineWindow } from './read-tool-lines.js';
import { describeFileOpenError, formatBytes, jsonSchemaOf } from './read-tool-support.js';
import { resolveToolPath } from './tool-paths.js';

/** The input of Read (Claude Code 2.1.45's fields). */
export const ReadInputSchema = z.strictObject({
  file_path: z
    .string()
    .describe('The file to read: absolute, or relative to the working directory.'),
  offset: z
    .number()
    .optional()
    .describe(
      'The line number to start at (1 is the first line). Give it with `limit` for large files.',
    ),
  limit: z.number().optional().describe('How many lines to read (default 2000).'),
  pages: z
    .string()
    .optional()
    .describe('Page range of a PDF file (e.g. "1-5"). PDFs are not supported yet.'),
});

/** What Read takes. */
export type ReadInput = z.infer<typeof ReadInputSchema>;

/** Limits of Read; every field has a default. */
export interface ReadToolOptions {
  /** Lines returned when no `limit` is given (default 2000). */
  defaultLimit?: number;
  /** Longer lines are cut to this many characters (default 2000). */
  maxLineChars?: number;
  /** Files larger than this are refused unless `offset` or `limit` is given (default 256 KiB). */
  maxWholeFileBytes?: number;
  /** The formatted text result stops before passing this many characters (default 100 000). */
  maxOutputChars?: number;
  /** Images larger than this are refused (default 3.75 MiB, about 5 MB once base64-encoded). */
  maxImageBytes?: number;
}

const IMAGE_EXTENSIONS = new Set(['.png', '.jpg', '.jpeg', '.gif', '.webp']);

/** Creates the Read tool. */
export function createReadTool(options: ReadToolOptions = {}): Tool<ReadInput> {
  const limits = {
    defaultLimit: options.defaultLimit ?? 2000,
    maxLineChars: options.maxLineChars ?? 2000,
    maxWholeFileBytes: options.maxWholeFileBytes ?? 256 * 1024,
    maxOutputChars: options.maxOutputChars ?? 100_000,
    maxImageBytes: options.maxImageBytes ?? Math.floor(3.75 * 1024 * 1024),
  };
  return {
    name: 'Read',
    description: [
      'Reads a file from the local file system. file_path may be absolute or relative to the working directory.',
      `Returns up to ${limits.defaultLimit} lines from the start by default, numbered like \`cat -n\` (number, tab, line); lines over ${limits.maxLineChars} characters are cut.`,
      `Files over ${formatBytes(limits.maxWholeFileBytes)} need offset and limit: read them in parts, or search them with Grep.`,
      'PNG, JPEG, GIF and WebP images are returned as images. Binary files and PDFs are refused.',
      'Read a file before changing it with Write or Edit.',
    ].join('\n'),
    inputSchema: ReadInputSchema,
    inputJsonSchema: jsonSchemaOf(ReadInputSchema),
    isReadOnly: () => true,
    isConcurrencySafe: () => true,
    pathsOf: (input) => [input.file_path],
    call: (input, context) => readFile(input, context, limits),
  };
}

async function readFile(
  input: ReadInput,
  context: ToolContext,
  limits: Required<ReadToolOptions>,
): Promise<ToolResult> {
  const offset = checkLineNumber(input.offset, 'offset', 1);
  const limit = checkLineNumber(input.limit, 'limit', limits.defaultLimit);
  const realPath = await resolveToolPath(context, input.file_path, 'read');
  const extension = path.extname(realPath).toLowerCase();
  if (extension === '.pdf') {
    throw new ToolError(
      `Read cannot read PDF files yet (${realPath}). If a PDF-to-text converter is installed, run it with Bash (e.g. \`pdftotext <file> -\`).`,
      'UNSUPPORTED_FILE_TYPE',
      { filePath: realPath },
    );
  }
  if (input.pages !== undefined) {
    throw new ToolError(
      `pages applies to PDF files only, and ${realPath} is not one: use offset and limit to read part of a text file.`,
      'INVALID_INPUT',
      { filePath: realPath },
    );
  }

  let handle: FileHandle;
  try {
    // O_NONBLOCK: opening a FIFO must not hang; O_NOFOLLOW: the resolved path must not have become a link.
    handle = await open(realPath, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    throw describeFileOpenError(error, input.file_path, realPath);
  }
  try {
    const stat = await handle.stat();
    if (stat.isDirectory()) {
      throw new ToolError(
        `${realPath} is a directory, not a file. List it with Glob (or Bash \`ls\`), then Read a file in it.`,
        'IS_A_DIRECTORY',
        { filePath: realPath },
      );
    }
    if (!stat.isFile()) {
      throw new ToolError(
        `${realPath} is not a regular file (a device, socket or pipe): Read only reads files.`,
        'NOT_A_FILE',
        {
          filePath: realPath,
        },
      );
    }
    if (IMAGE_EXTENSIONS.has(extension)) {
      return await readImage(handle, realPath, stat, context, limits.maxImageBytes);
    }
    if (
      stat.size > limits.maxWholeFileBytes &&
      input.offset === undefined &&
      input.limit === undefined
    ) {
      throw new ToolError(
        `${realPath} is ${formatBytes(stat.size)}, more than the ${formatBytes(limits.maxWholeFileBytes)} Read returns at once. Give offset and limit to read part of it (e.g. offset 1, limit 500), or search it with Grep.`,
        'FILE_TOO_LARGE',
        { filePath: realPath, size: stat.size },
      );
    }
    const window = await readLineWindow(handle, {
      offset,
      limit,
      maxLineChars: limits.maxLineChars,
      maxOutputChars: limits.maxOutputChars,
      signal: context.signal,
    });
    if (window.binary) {
      throw new ToolError(
        `${realPath} looks binary (it holds NUL bytes), so Read will not show it as text. Inspect it with Bash (e.g. \`file\` or \`xxd | head\`) if you must.`,
        'BINARY_FILE',
        { filePath: realPath },
      );
    }
    const whole = offset === 1 && window.reachedEnd && !window.moreLines;
    fileReadState(context).record(realPath, {
      mtimeMs: stat.mtimeMs,
      size: stat.size,
      whole,
      ...(whole && window.hash !== undefined ? { hash: window.hash } : {}),
    });
    return formatWindow(realPath, window, offset, stat.size);
  } finally {
    await handle.close();
  }
}

function formatWindow(
  realPath: string,
  window: Awaited<ReturnType<typeof readLineWindow>>,
  offset: number,
  size: number,
): ToolResult {
  const data = {
    filePath: realPath,
    firstLine: offset,
    lineCount: window.lines.length,
    totalLines: window.totalLines,
    cutLines: window.cutLines,
    moreLines: window.moreLines,
  };
  if (window.lines.length === 0) {
    const text =
      window.totalLines === 0
        ? `(${realPath} exists but is empty.)`
        : `(${realPath} has ${window.totalLines} lines; offset ${offset} is past the end. Read from offset 1, or a smaller offset.)`;
    return { content: text, data };
  }
  const numbered = window.lines.map(
    (line, index) => `${String(offset + index).padStart(6)}\t${line}`,
  );
  const notes: string[] = [];
  const lastLine = offset + window.lines.length - 1;
  if (window.moreLines) {
    const reason = window.outputCapped
      ? 'the output reached its size limit'
      : 'the limit was reached';
    notes.push(
      `(Stopped at line ${lastLine} because ${reason}; the file has more. Continue with offset ${lastLine + 1}.)`,
    );
  }
  if (window.cutLines > 0) {
    notes.push(`(${window.cutLines} long line(s) were cut; use Grep or Bash to see them whole.)`);
  }
  if (!window.moreLines && offset > 1 && window.totalLines !== undefined) {
    notes.push(`(End of file: ${window.totalLines} lines, ${formatBytes(size)}.)`);
  }
  return { content: [numbered.join('\n'), ...notes].join('\n'), data };
}

async function readImage(
  handle: FileHandle,
  realPath: string,
  stat: { size: number; mtimeMs: number },
  context: ToolContext,
  maxImageBytes: number,
): Promise<ToolResult> {
  if (stat.size > maxImageBytes) {
    throw new ToolError(
      `${realPath} is a ${formatBytes(stat.size)} image, larger than the ${formatBytes(maxImageBytes)} Read sends to the model. Make a smaller copy (e.g. with ImageMagick in Bash) and Read that.`,
      'FILE_TOO_LARGE',
      { filePath: realPath, size: stat.size },
    );
  }
  const bytes = Buffer.alloc(stat.size);
  let filled = 0;
  while (filled < stat.size) {
    const { bytesRead } = await handle.read(bytes, filled, stat.size - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  const content = bytes.subarray(0, filled);
  const mediaType = imageMediaType(content);
  if (mediaType === undefined) {
    throw new ToolError(
      `${realPath} has an image extension but is not a PNG, JPEG, GIF or WebP image (its first bytes say otherwise). Check the file with Bash \`file\`.`,
      'UNSUPPORTED_FILE_TYPE',
      { filePath: realPath },
    );
  }
  fileReadState(context).record(realPath, {
    mtimeMs: stat.mtimeMs,
    size: stat.size,
    whole: true,
    hash: hashContent(content),
  });
  return {
    content: [
      {
        type: 'image',
        source: { type: 'base64', media_type: mediaType, data: content.toString('base64') },
      },
    ],
    data: { filePath: realPath, mediaType, size: filled },
  };
}

/** The media type from the file's magic bytes (not its extension). */
function imageMediaType(bytes: Buffer): string | undefined {
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return 'image/png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  const head = bytes.subarray(0, 6).toString('latin1');
  if (head === 'GIF87a' || head === 'GIF89a') return 'image/gif';
  if (
    bytes.subarray(0, 4).toString('latin1') === 'RIFF' &&
    bytes.subarray(8, 12).toString('latin1') === 'WEBP'
  ) {
    return 'image/webp';
  }
  return undefined;
}

function checkLineNumber(
  value: number | undefined,
  field: 'offset' | 'limit',
  fallback: number,
): number {
  if (value === undefined) return fallback;
  // Models often send offset 0 for "from the start".
  if (field === 'offset' && value === 0) return 1;
  if (!Number.isInteger(value) || value < 1) {
    throw new ToolError(
      `${field} must be a whole number of at least 1 (got ${value}). ${field === 'offset' ? 'Line 1 is the first line.' : 'Give how many lines to read.'}`,
      'INVALID_INPUT',
      { [field]: value },
    );
  }
  return value;
}
