import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BUILT_IN_SCRIPTS, loadScript, ScriptLoadError } from './load-script.js';
import { createScriptContext } from './script-context.js';
import { demoTeamScript } from './scripts/demo-team.js';

let folder: string;
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'load-script-'));
});
afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

async function failure(nameOrPath: string): Promise<ScriptLoadError> {
  const error = await loadScript(nameOrPath, folder).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(ScriptLoadError);
  return error as ScriptLoadError;
}

describe('loadScript', () => {
  it('returns a built-in script by name', async () => {
    expect(await loadScript('demo-team')).toBe(demoTeamScript);
    expect(Object.keys(BUILT_IN_SCRIPTS)).toEqual(['demo-team']);
  });

  it('imports a plain ESM module (relative or absolute path) and returns its default export', async () => {
    await writeFile(
      join(folder, 'hello.mjs'),
      "export default function script(request) { return { content: [{ type: 'text', text: 'hello #' + request.index }] }; }\n",
    );
    const script = await loadScript('hello.mjs', folder);
    const reply = await script(
      {
        index: 3,
        path: '/v1/messages',
        headers: {},
        receivedAt: 0,
        body: { model: 'm', max_tokens: 1, messages: [] },
      },
      createScriptContext(),
    );
    expect(reply.content).toEqual([{ type: 'text', text: 'hello #3' }]);
    expect(await loadScript(join(folder, 'hello.mjs'))).toBeTypeOf('function');
  });

  it('says when the file is missing or is a folder', async () => {
    const missing = await failure('nope.mjs');
    expect(missing.code).toBe('NOT_FOUND');
    expect(missing.message).toContain(
      `Script not found: ${join(folder, 'nope.mjs')} is not a file`,
    );
    expect(missing.message).toContain('demo-team');
    expect((await failure('.')).code).toBe('NOT_FOUND');
    expect((await failure('')).code).toBe('NOT_FOUND');
  });

  it('says when the module has no default export, naming what it exports', async () => {
    await writeFile(
      join(folder, 'named.mjs'),
      'export function script() {}\nexport const other = 1;\n',
    );
    const error = await failure('named.mjs');
    expect(error.code).toBe('NO_DEFAULT_EXPORT');
    expect(error.message).toMatch(
      /has no default export \(it exports (script, other|other, script)\)/,
    );
  });

  it('says when the default export is not a function', async () => {
    await writeFile(join(folder, 'object.mjs'), 'export default { reply: 1 };\n');
    const error = await failure('object.mjs');
    expect(error.code).toBe('NOT_A_FUNCTION');
    expect(error.message).toContain('its default export is object, not a function');
  });

  it('says when the module throws while loading, or does not parse', async () => {
    await writeFile(join(folder, 'throws.mjs'), "throw new Error('no API key in this script');\n");
    const thrown = await failure('throws.mjs');
    expect(thrown.code).toBe('IMPORT_FAILED');
    expect(thrown.message).toContain('failed to load: no API key in this script');
    await writeFile(join(folder, 'broken.mjs'), 'export default function (\n');
    expect((await failure('broken.mjs')).code).toBe('IMPORT_FAILED');
  });
});
