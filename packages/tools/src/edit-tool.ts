// Edit: replaces one exact piece of text in a file (or every occurrence with replace_all),
// atomically. The file must have been read by this agent and be unchanged since.
import type { Tool, ToolContext, ToolResult } from '@muster/query';
import { ToolError } from '@muster/query';
import { z } from 'zod';
import { applyReplacement, describeNoMatch, snippetAround } from './edit-tool-text.js';
import { assertReadAndUnchanged, fileReadState, hashContent } from './file-read-state.js';
import { BINARY_PROBE_BYTES } from './read-tool-lines.js';
import { jsonSchemaOf } from './read-tool-support.js';
import { resolveToolPath } from './tool-paths.js';
import type { FileChangeToolOptions } from './write-tool.js';
import {
  prepareParentFolders,
  readExistingFile,
  writeFileAtomically,
} from './write-tool-atomic.js';

/** The input of Edit (Claude Code 2.1.45's fields). */
export const EditInputSchema = z.strictObject({
  file_path: z
    .string()
    .describe('The file to change: absolute, or relative to the working directory.'),
  old_string: z
    .string()
    .describe(
      'The exact text to replace, with its whitespace and indentation, as the file holds it.',
    ),
  new_string: z.string().describe('The text to put in its place (must differ from old_string).'),
  replace_all: z
    .boolean()
    .default(false)
    .describe('Replace every occurrence of old_string (default: exactly one must exist).'),
});

/** What Edit takes (after parsing: `replace_all` is always set). */
export type EditInput = z.input<typeof EditInputSchema>;

const UTF8_BOM = '\uFEFF';

/** Creates the Edit tool. */
export function createEditTool(options: FileChangeToolOptions = {}): Tool<EditInput> {
  const maxFileBytes = options.maxFileBytes ?? 16 * 1024 * 1024;
  return {
    name: 'Edit',
    description: [
      'Replaces exact text in a file: old_string must occur exactly once (add surrounding lines to make it unique), or set replace_all to replace every occurrence.',
      'Read the file first; the edit is refused if the file changed since you read it. Copy old_string from the Read output without the line-number prefix.',
      'An empty old_string creates a new file holding new_string. The change is written atomically.',
    ].join('\n'),
    inputSchema: EditInputSchema,
    inputJsonSchema: jsonSchemaOf(EditInputSchema),
    isReadOnly: () => false,
    isConcurrencySafe: () => false,
    pathsOf: (input) => [input.file_path],
    call: (input, context) => editFile(input, context, maxFileBytes),
  };
}

async function editFile(
  input: EditInput,
  context: ToolContext,
  maxFileBytes: number,
): Promise<ToolResult> {
  const replaceAll = input.replace_all ?? false;
  if (input.old_string === input.new_string) {
    throw new ToolError(
      'old_string and new_string are the same, so the edit would change nothing. Give the new text in new_string.',
      'NO_CHANGE',
    );
  }
  const realPath = await resolveToolPath(context, input.file_path, 'write');
  const existing = await readExistingFile(realPath, input.file_path, {
    maxBytes: maxFileBytes,
    toolName: 'Edit',
  });
  const state = fileReadState(context);

  if (existing === undefined) {
    if (input.old_string !== '') {
      throw new ToolError(
        `${realPath} does not exist, so old_string cannot be found in it. Check the path (Glob finds files by name); to create the file, use Write or an Edit with an empty old_string.`,
        'FILE_NOT_FOUND',
        { filePath: realPath },
      );
    }
    await prepareParentFolders(context, realPath);
    const written = await writeFileAtomically(realPath, input.new_string, {
      signal: context.signal,
    });
    state.record(realPath, { ...written, whole: true, hash: hashContent(input.new_string) });
    return {
      content: `File created successfully at: ${realPath}`,
      data: { type: 'create', filePath: realPath, replacements: 0 },
    };
  }

  const hash = hashContent(existing.content);
  assertReadAndUnchanged(
    state,
    realPath,
    { mtimeMs: existing.mtimeMs, size: existing.size, hash },
    { requireWhole: false, toolName: 'Edit' },
  );
  if (existing.content.subarray(0, BINARY_PROBE_BYTES).includes(0)) {
    throw new ToolError(
      `Edit refused: ${realPath} looks binary (it holds NUL bytes). Edit changes text files only.`,
      'BINARY_FILE',
      {
        filePath: realPath,
      },
    );
  }
  const decoded = existing.content.toString('utf8');
  const bom = decoded.startsWith(UTF8_BOM) ? UTF8_BOM : '';
  const original = decoded.slice(bom.length);
  if (input.old_string === '') {
    if (original.length > 0) {
      throw new ToolError(
        `Edit refused: old_string is empty but ${realPath} is not. Give the text to replace (or next to where the new text goes); to replace the whole file, use Write.`,
        'INVALID_INPUT',
        { filePath: realPath },
      );
    }
  }
  const outcome =
    input.old_string === ''
      ? { text: input.new_string, count: 1, at: 0, newLength: input.new_string.length }
      : applyReplacement(original, input.old_string, input.new_string, replaceAll);
  if (outcome.count === 0) {
    throw new ToolError(describeNoMatch(realPath, original, input.old_string), 'NO_MATCH', {
      filePath: realPath,
    });
  }
  if ('ambiguousLines' in outcome) {
    throw new ToolError(
      `Edit refused: old_string occurs ${outcome.count} times in ${realPath} (at lines ${outcome.ambiguousLines.join(', ')}${outcome.count > outcome.ambiguousLines.length ? ', …' : ''}). Add surrounding lines to old_string so it matches exactly one place, or set replace_all to true to change all ${outcome.count}.`,
      'AMBIGUOUS_MATCH',
      { filePath: realPath, matches: outcome.count },
    );
  }
  const written = await writeFileAtomically(realPath, bom + outcome.text, {
    mode: existing.mode,
    signal: context.signal,
  });
  state.record(realPath, { ...written, whole: true, hash: hashContent(bom + outcome.text) });
  const counted = replaceAll
    ? ` (${outcome.count} occurrence${outcome.count === 1 ? '' : 's'} replaced)`
    : '';
  return {
    content: [
      `The file ${realPath} has been updated successfully${counted}. Lines around the change (\`cat -n\`):`,
      snippetAround(outcome.text, outcome.at, outcome.newLength),
    ].join('\n'),
    data: { type: 'update', filePath: realPath, replacements: outcome.count },
  };
}
