import { readFile, realpath, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { AnyTool } from '@muster/query';
import { makeTempDirectory } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import { createFileTools } from './file-tools.js';
import { createTestStateStore, createTestToolContext } from './test-support.js';

describe('createFileTools', () => {
  it('gives Read, Write and Edit with their names and flags, sharing the read state of one agent', async () => {
    const project = await realpath(await makeTempDirectory('muster-file-tools-'));
    const tools = createFileTools();
    const list: AnyTool[] = [tools.read, tools.write, tools.edit];
    expect(
      list.map((tool) => [tool.name, tool.isReadOnly({}), tool.isConcurrencySafe({})]),
    ).toEqual([
      ['Read', true, true],
      ['Write', false, false],
      ['Edit', false, false],
    ]);
    expect(tools.edit.pathsOf?.({ file_path: 'a.txt', old_string: 'a', new_string: 'b' })).toEqual([
      'a.txt',
    ]);

    await writeFile(path.join(project, 'notes.md'), '# Notes\n');
    const state = createTestStateStore();
    // Two calls of one agent (two contexts, one state store): the read of the first counts for the second.
    const first = createTestToolContext({ cwd: project, state, toolUseId: 'toolu_1' });
    const second = createTestToolContext({ cwd: project, state, toolUseId: 'toolu_2' });
    await tools.read.call({ file_path: 'notes.md' }, first.context);
    await tools.write.call({ file_path: 'notes.md', content: '# Notes\n\nmore\n' }, second.context);
    expect(await readFile(path.join(project, 'notes.md'), 'utf8')).toBe('# Notes\n\nmore\n');
    // Another agent (its own state store) has read nothing.
    const other = createTestToolContext({ cwd: project });
    await expect(
      tools.edit.call(
        { file_path: 'notes.md', old_string: 'more', new_string: 'less' },
        other.context,
      ),
    ).rejects.toMatchObject({ code: 'FILE_NOT_READ' });
  });
});
