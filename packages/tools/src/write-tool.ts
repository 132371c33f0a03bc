// Write: creates a file or replaces all of it, atomically. An existing file must have been
// read whole by this agent and be unchanged since, so the model never overwrites what it has
// not seen.
import type { Tool, ToolContext, ToolResult } from '@muster/query';
import { z } from 'zod';
import { assertReadAndUnchanged, fileReadState, hashContent } from './file-read-state.js';
import { jsonSchemaOf } from './read-tool-support.js';
import { resolveToolPath } from './tool-paths.js';
import {
  prepareParentFolders,
  readExistingFile,
  writeFileAtomically,
} from './write-tool-atomic.js';

/** The input of Write (Claude Code 2.1.45's fields). */
export const WriteInputSchema = z.strictObject({
  file_path: z
    .string()
    .describe('The file to write: absolute, or relative to the working directory.'),
  content: z.string().describe('The whole new content of the file.'),
});

/** What Write takes. */
export type WriteInput = z.infer<typeof WriteInputSchema>;

/** Limits of Write and Edit. */
export interface FileChangeToolOptions {
  /** Existing files larger than this are refused (they are read whole to check them; default 16 MiB). */
  maxFileBytes?: number;
}

/** Creates the Write tool. */
export function createWriteTool(options: FileChangeToolOptions = {}): Tool<WriteInput> {
  const maxFileBytes = options.maxFileBytes ?? 16 * 1024 * 1024;
  return {
    name: 'Write',
    description: [
      'Writes a file: creates it (and its missing folders), or replaces all of its content.',
      'To replace an existing file you must have read it whole with Read first, and it must not have changed since; otherwise the write is refused.',
      'Prefer Edit for changing part of a file. The write is atomic: readers see the old or the new content, never a mix.',
    ].join('\n'),
    inputSchema: WriteInputSchema,
    inputJsonSchema: jsonSchemaOf(WriteInputSchema),
    isReadOnly: () => false,
    isConcurrencySafe: () => false,
    pathsOf: (input) => [input.file_path],
    call: (input, context) => writeFile(input, context, maxFileBytes),
  };
}

async function writeFile(
  input: WriteInput,
  context: ToolContext,
  maxFileBytes: number,
): Promise<ToolResult> {
  const realPath = await resolveToolPath(context, input.file_path, 'write');
  const existing = await readExistingFile(realPath, input.file_path, {
    maxBytes: maxFileBytes,
    toolName: 'Write',
  });
  const state = fileReadState(context);
  if (existing === undefined) {
    await prepareParentFolders(context, realPath);
  } else {
    assertReadAndUnchanged(
      state,
      realPath,
      { mtimeMs: existing.mtimeMs, size: existing.size, hash: hashContent(existing.content) },
      { requireWhole: true, toolName: 'Write' },
    );
  }
  const written = await writeFileAtomically(realPath, input.content, {
    ...(existing === undefined ? {} : { mode: existing.mode }),
    signal: context.signal,
  });
  state.record(realPath, { ...written, whole: true, hash: hashContent(input.content) });
  const lineCount = input.content.length === 0 ? 0 : input.content.split('\n').length;
  const data = {
    type: existing === undefined ? 'create' : 'update',
    filePath: realPath,
    bytes: written.size,
    lines: lineCount,
  };
  if (existing === undefined) {
    return { content: `File created successfully at: ${realPath}`, data };
  }
  return {
    content: `The file ${realPath} has been updated successfully (${written.size} bytes).`,
    data,
  };
}
