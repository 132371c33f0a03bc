import {
  chmod,
  mkdir,
  readdir,
  readFile,
  stat,
  symlink,
  utimes,
  writeFile,
} from 'node:fs/promises';
import path from 'node:path';
import type { ToolResult } from '@muster/query';
import { describe, expect, it } from 'vitest';
import {
  claudeCodeToolSchema,
  openFileToolTest,
  toolRefusal,
  toolSchemaShape,
} from './test-support.js';
import { createWriteTool } from './write-tool.js';

async function setUp() {
  const test = await openFileToolTest('muster-write-');
  const writeTool = createWriteTool();
  return {
    ...test,
    write: (file_path: string, content: string) =>
      writeTool.call({ file_path, content }, test.context),
  };
}

const refusal = (promise: Promise<unknown>) => toolRefusal(promise, 'Write');

const text = (result: ToolResult) => result.content as string;

describe('Write', () => {
  it('sends the JSON Schema of Claude Code 2.1.45', () => {
    const schema = createWriteTool().inputJsonSchema;
    expect(schema?.$schema).toBeUndefined();
    expect(toolSchemaShape(schema)).toEqual(toolSchemaShape(claudeCodeToolSchema('Write')));
  });

  it('creates a file and its missing folders, and may then rewrite it without reading it again', async () => {
    const { project, write } = await setUp();
    const created = await write('deep/er/new.txt', 'hello\n');
    expect(text(created)).toBe(
      `File created successfully at: ${path.join(project, 'deep/er/new.txt')}`,
    );
    expect(created.data).toMatchObject({ type: 'create', bytes: 6, lines: 2 });
    expect(await readFile(path.join(project, 'deep/er/new.txt'), 'utf8')).toBe('hello\n');
    const updated = await write('deep/er/new.txt', 'bye\n');
    expect(text(updated)).toContain('has been updated successfully');
    expect(await readFile(path.join(project, 'deep/er/new.txt'), 'utf8')).toBe('bye\n');
    expect(await readdir(path.join(project, 'deep/er'))).toEqual(['new.txt']);
  });

  it('refuses to replace an existing file this agent has not read, and leaves it alone', async () => {
    const { project, write } = await setUp();
    await writeFile(path.join(project, 'existing.txt'), 'precious\n');
    const error = await refusal(write('existing.txt', 'overwritten'));
    expect(error.code).toBe('FILE_NOT_READ');
    expect(error.message).toMatch(/has not read it\. Read it first/u);
    expect(await readFile(path.join(project, 'existing.txt'), 'utf8')).toBe('precious\n');
  });

  it('refuses after a partial read; accepts after a whole read and keeps the mode', async () => {
    const { project, write, read } = await setUp();
    const file = path.join(project, 'script.sh');
    await writeFile(file, 'one\ntwo\nthree\n');
    await chmod(file, 0o751);
    await read('script.sh', { limit: 1 });
    expect((await refusal(write('script.sh', 'x'))).message).toContain('read only part');
    await read('script.sh');
    await write('script.sh', 'echo new\n');
    expect(await readFile(file, 'utf8')).toBe('echo new\n');
    expect((await stat(file)).mode & 0o777).toBe(0o751);
  });

  it('refuses a file changed since it was read, even with the same size and mtime', async () => {
    const { project, write, read } = await setUp();
    const file = path.join(project, 'shared.txt');
    await writeFile(file, 'version 1\n');
    await read('shared.txt');
    const before = await stat(file);
    await writeFile(file, 'version 2\n');
    await utimes(file, before.atime, before.mtime);
    const error = await refusal(write('shared.txt', 'mine\n'));
    expect(error.code).toBe('FILE_CHANGED_SINCE_READ');
    expect(error.message).toContain('Read it again');
    expect(await readFile(file, 'utf8')).toBe('version 2\n');
  });

  it('accepts a file only touched since it was read (same content)', async () => {
    const { project, write, read } = await setUp();
    const file = path.join(project, 'touched.txt');
    await writeFile(file, 'same\n');
    await read('touched.txt');
    await utimes(file, new Date(), new Date(Date.now() + 5000));
    await write('touched.txt', 'changed\n');
    expect(await readFile(file, 'utf8')).toBe('changed\n');
  });

  it('refuses ../../outside and creates nothing there', async () => {
    const { base, project, write, context } = await setUp();
    context.cwd = path.join(project, 'sub');
    await mkdir(context.cwd);
    const error = await refusal(write('../../outside/evil.txt', 'x'));
    expect(error.code).toBe('PATH_OUTSIDE_ROOTS');
    expect(error.message).toContain(project);
    expect(await readdir(path.join(base, 'outside'))).toEqual([]);
  });

  it('never writes through a symlink that leaves the roots (folder link, file link, dangling link)', async () => {
    const { project, outside, write } = await setUp();
    await writeFile(path.join(outside, 'target.txt'), 'outside\n');
    await symlink(outside, path.join(project, 'out-folder'));
    await symlink(path.join(outside, 'target.txt'), path.join(project, 'out-file.txt'));
    await symlink(path.join(outside, 'created.txt'), path.join(project, 'dangling.txt'));
    expect((await refusal(write('out-folder/new.txt', 'x'))).code).toBe('SYMLINK_ESCAPES');
    expect((await refusal(write('out-folder/deeper/new.txt', 'x'))).code).toBe('SYMLINK_ESCAPES');
    expect((await refusal(write('out-file.txt', 'x'))).code).toBe('SYMLINK_ESCAPES');
    expect((await refusal(write('dangling.txt', 'x'))).code).toBe('SYMLINK_ESCAPES');
    expect((await readdir(outside)).sort()).toEqual(['target.txt']);
    expect(await readFile(path.join(outside, 'target.txt'), 'utf8')).toBe('outside\n');
  });

  it('writes the target of a link that stays inside the roots and keeps the link', async () => {
    const { project, write, read } = await setUp();
    await writeFile(path.join(project, 'real.txt'), 'old\n');
    await symlink('real.txt', path.join(project, 'alias.txt'));
    await read('alias.txt');
    const result = await write('alias.txt', 'new\n');
    expect(result.data).toMatchObject({ filePath: path.join(project, 'real.txt') });
    expect(await readFile(path.join(project, 'real.txt'), 'utf8')).toBe('new\n');
    expect(await readFile(path.join(project, 'alias.txt'), 'utf8')).toBe('new\n');
  });

  it('refuses a directory, and writes nothing once the turn is aborted', async () => {
    const { project, write, abort } = await setUp();
    await mkdir(path.join(project, 'folder'));
    expect((await refusal(write('folder', 'x'))).code).toBe('IS_A_DIRECTORY');
    abort();
    expect((await refusal(write('late.txt', 'x'))).code).toBe('ABORTED');
    expect((await readdir(project)).sort()).toEqual(['folder']);
  });

  it('refuses a folder path that runs through a file', async () => {
    const { project, write } = await setUp();
    await writeFile(path.join(project, 'plain.txt'), 'x');
    const error = await refusal(write('plain.txt/inner.txt', 'x'));
    expect(error.code).toBe('FILE_NOT_FOUND');
    expect(error.message).toContain('a part of its path is a file');
  });
});
