import { chmod, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createEditTool, EditInputSchema } from './edit-tool.js';
import type { EditInput } from './edit-tool.js';
import { createWriteTool } from './write-tool.js';
import {
  claudeCodeToolSchema,
  openFileToolTest,
  toolRefusal,
  toolSchemaShape,
} from './test-support.js';

async function setUp() {
  const test = await openFileToolTest('muster-edit-');
  const editTool = createEditTool();
  return {
    ...test,
    // Parsed as the loop parses it (replace_all gets its default).
    edit: (input: EditInput) => editTool.call(EditInputSchema.parse(input), test.context),
    /** Writes `content` to `name` in the project and reads it whole through Read. */
    async prepare(name: string, content: string | Buffer) {
      await writeFile(path.join(test.project, name), content);
      await test.read(name);
      return path.join(test.project, name);
    },
  };
}

const refusal = (promise: Promise<unknown>) => toolRefusal(promise, 'Edit');

describe('Edit', () => {
  it('sends the JSON Schema of Claude Code 2.1.45 (replace_all optional with its default)', () => {
    const schema = createEditTool().inputJsonSchema;
    expect(schema?.$schema).toBeUndefined();
    expect(toolSchemaShape(schema)).toEqual(toolSchemaShape(claudeCodeToolSchema('Edit')));
    expect((schema?.properties as Record<string, { default?: unknown }>).replace_all?.default).toBe(
      false,
    );
  });

  it('replaces one unique match literally ($& stays $&) and shows the lines around it', async () => {
    const { prepare, edit } = await setUp();
    const file = await prepare('app.ts', 'const a = 1;\nconst b = 2;\nconst c = 3;\n');
    const result = await edit({
      file_path: 'app.ts',
      old_string: 'const b = 2;',
      new_string: "const b = '$&$1';",
    });
    expect(await readFile(file, 'utf8')).toBe("const a = 1;\nconst b = '$&$1';\nconst c = 3;\n");
    expect(result.content).toBe(
      `The file ${file} has been updated successfully. Lines around the change (\`cat -n\`):\n     1\tconst a = 1;\n     2\tconst b = '$&$1';\n     3\tconst c = 3;\n     4\t`,
    );
    expect(result.data).toMatchObject({ type: 'update', replacements: 1 });
  });

  it('refuses old_string equal to new_string', async () => {
    const { prepare, edit } = await setUp();
    await prepare('same.txt', 'x\n');
    expect(
      (await refusal(edit({ file_path: 'same.txt', old_string: 'x', new_string: 'x' }))).code,
    ).toBe('NO_CHANGE');
  });

  it('refuses 0 matches and several matches with counts; replace_all changes every one', async () => {
    const { prepare, edit } = await setUp();
    const file = await prepare('list.txt', 'item\nother\nitem\nitem\n');
    const none = await refusal(
      edit({ file_path: 'list.txt', old_string: 'missing', new_string: 'x' }),
    );
    expect(none.code).toBe('NO_MATCH');
    expect(none.message).toContain('0 matches');
    const several = await refusal(
      edit({ file_path: 'list.txt', old_string: 'item', new_string: 'thing' }),
    );
    expect(several.code).toBe('AMBIGUOUS_MATCH');
    expect(several.message).toContain('occurs 3 times');
    expect(several.message).toContain('at lines 1, 3, 4');
    expect(await readFile(file, 'utf8')).toBe('item\nother\nitem\nitem\n');
    const all = await edit({
      file_path: 'list.txt',
      old_string: 'item',
      new_string: 'thing',
      replace_all: true,
    });
    expect(all.content).toContain('(3 occurrences replaced)');
    expect(await readFile(file, 'utf8')).toBe('thing\nother\nthing\nthing\n');
  });

  it('hints at line-number prefixes and at whitespace differences', async () => {
    const { prepare, edit } = await setUp();
    await prepare('code.py', 'def f():\n    return 1\n');
    const prefixed = await refusal(
      edit({ file_path: 'code.py', old_string: '     2\t    return 1', new_string: 'x' }),
    );
    expect(prefixed.message).toContain('line-number prefixes');
    const spaced = await refusal(
      edit({ file_path: 'code.py', old_string: 'def f():\n  return 1', new_string: 'x' }),
    );
    expect(spaced.message).toContain('different whitespace');
  });

  it('refuses an unread file and a file changed since it was read; a partial read is enough', async () => {
    const { project, prepare, edit, read } = await setUp();
    await writeFile(path.join(project, 'unread.txt'), 'alpha\nbeta\n');
    expect(
      (await refusal(edit({ file_path: 'unread.txt', old_string: 'beta', new_string: 'gamma' })))
        .code,
    ).toBe('FILE_NOT_READ');
    await read('unread.txt', { offset: 2, limit: 1 });
    await edit({ file_path: 'unread.txt', old_string: 'beta', new_string: 'gamma' });
    expect(await readFile(path.join(project, 'unread.txt'), 'utf8')).toBe('alpha\ngamma\n');

    const file = await prepare('moving.txt', 'version 1\n');
    await writeFile(file, 'version 2 from someone else\n');
    const stale = await refusal(
      edit({ file_path: 'moving.txt', old_string: 'version', new_string: 'v' }),
    );
    expect(stale.code).toBe('FILE_CHANGED_SINCE_READ');
    expect(stale.message).toContain('Read it again');
    expect(await readFile(file, 'utf8')).toBe('version 2 from someone else\n');
  });

  it('allows consecutive edits without reading again (its own writes are recorded)', async () => {
    const { prepare, edit } = await setUp();
    const file = await prepare('steps.txt', 'one two three\n');
    await edit({ file_path: 'steps.txt', old_string: 'one', new_string: '1' });
    await edit({ file_path: 'steps.txt', old_string: 'two', new_string: '2' });
    expect(await readFile(file, 'utf8')).toBe('1 2 three\n');
  });

  it('keeps CRLF line endings, a BOM and the mode', async () => {
    const { prepare, edit } = await setUp();
    const file = await prepare('windows.txt', '\uFEFFfirst\r\nsecond\r\nthird\r\n');
    await chmod(file, 0o640);
    await edit({ file_path: 'windows.txt', old_string: 'first\nsecond', new_string: 'one\ntwo' });
    expect(await readFile(file, 'utf8')).toBe('\uFEFFone\r\ntwo\r\nthird\r\n');
    expect((await stat(file)).mode & 0o777).toBe(0o640);
  });

  it('creates a file from an empty old_string, and refuses an empty old_string on a non-empty file', async () => {
    const { project, prepare, edit } = await setUp();
    const created = await edit({
      file_path: 'new/file.txt',
      old_string: '',
      new_string: 'fresh\n',
    });
    expect(created.content).toContain('File created successfully');
    expect(await readFile(path.join(project, 'new/file.txt'), 'utf8')).toBe('fresh\n');
    await prepare('full.txt', 'content\n');
    expect(
      (await refusal(edit({ file_path: 'full.txt', old_string: '', new_string: 'x' }))).message,
    ).toContain('use Write');
    const missing = await refusal(
      edit({ file_path: 'nowhere.txt', old_string: 'a', new_string: 'b' }),
    );
    expect(missing.code).toBe('FILE_NOT_FOUND');
  });

  it('refuses paths outside the roots, links leaving them, and binary files', async () => {
    const { project, outside, prepare, edit, context } = await setUp();
    await writeFile(path.join(outside, 'target.txt'), 'outside\n');
    await symlink(path.join(outside, 'target.txt'), path.join(project, 'link.txt'));
    expect(
      (
        await refusal(
          edit({ file_path: '../outside/target.txt', old_string: 'outside', new_string: 'x' }),
        )
      ).code,
    ).toBe('PATH_OUTSIDE_ROOTS');
    expect(
      (await refusal(edit({ file_path: 'link.txt', old_string: 'outside', new_string: 'x' }))).code,
    ).toBe('SYMLINK_ESCAPES');
    expect(await readFile(path.join(outside, 'target.txt'), 'utf8')).toBe('outside\n');
    // Read refuses binary files (and records nothing), so an unread binary file is refused as unread…
    await writeFile(path.join(project, 'data.bin'), Buffer.from([1, 0, 2]));
    expect(
      (await refusal(edit({ file_path: 'data.bin', old_string: 'a', new_string: 'b' }))).code,
    ).toBe('FILE_NOT_READ');
    // …and one this agent wrote itself (so it counts as read) as binary.
    await createWriteTool().call({ file_path: 'written.bin', content: 'a\u0000b' }, context);
    expect(
      (await refusal(edit({ file_path: 'written.bin', old_string: 'a', new_string: 'c' }))).code,
    ).toBe('BINARY_FILE');
    await prepare('ok.txt', 'ok\n');
    expect((await readdir(project)).filter((name) => name.includes('muster-tmp'))).toEqual([]);
  });
});
