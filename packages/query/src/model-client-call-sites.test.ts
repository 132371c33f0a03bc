// R1: all model traffic of @muster/query goes through ModelClient.stream. This reads the package's
// source (comments removed) and fails when any other file calls the Messages API directly.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const sourceDirectory = dirname(fileURLToPath(import.meta.url));
const packageDirectory = dirname(sourceDirectory);

/** Every .ts file under `directory`, tests and test support left out. */
function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(ts|mts|js|mjs)$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((file) => !/\.test\.ts$|test-support\.ts$/.test(file));
}

/** The code without `//` and `/* … *\/` comments (string contents are kept). */
function withoutComments(code: string): string {
  return code.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
}

/** Direct Messages API calls: create, stream, countTokens is allowed, beta namespaces too. */
const DIRECT_CALL =
  /\bmessages\s*\.\s*(create|stream|parse|batches)\s*\(|\bbeta\s*\.\s*messages\b/g;

function callSites(files: string[]): Array<{ file: string; call: string }> {
  return files.flatMap((file) =>
    [...withoutComments(readFileSync(file, 'utf8')).matchAll(DIRECT_CALL)].map((match) => ({
      file: relative(packageDirectory, file),
      call: match[0],
    })),
  );
}

describe('R1: one model client wrapper', () => {
  it('the only Messages API call in src/ is the one messages.stream of model-client.ts; bench/ has only its raw-SDK baseline', () => {
    const files = [
      ...sourceFiles(sourceDirectory),
      ...sourceFiles(join(packageDirectory, 'bench')),
    ];
    expect(files.length).toBeGreaterThan(3);
    // bench/canned-model.mjs replays each request through the raw SDK on purpose: it is the
    // baseline muster's own cost per turn is measured against. Nothing else may call the API.
    expect(callSites(files)).toEqual([
      { file: 'src/model-client.ts', call: 'messages.stream(' },
      { file: 'bench/canned-model.mjs', call: 'messages.stream(' },
    ]);
  });

  it('the check sees a call it must refuse, and ignores one in a comment', () => {
    const code = [
      '// client.messages.create(params) in a comment is fine',
      '/* anthropic.messages.stream(x) */',
      'const reply = await anthropic.messages.create({ model, max_tokens, messages });',
      'const other = client.beta.messages.stream(params);',
    ].join('\n');
    expect([...withoutComments(code).matchAll(DIRECT_CALL)].map((match) => match[0])).toEqual([
      'messages.create(',
      'beta.messages',
    ]);
  });
});
