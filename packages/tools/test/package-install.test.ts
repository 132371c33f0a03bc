// Packs @muster/tools with the @muster packages it depends on, installs the tarballs
// with plain npm into an empty folder and uses it there (scripts/check-installable.mjs at
// the repository root, then scripts/installed-check.mjs here). Needs the built dist/
// folders and the npm registry (for zod and @anthropic-ai/sdk).
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const script = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../scripts/check-installable.mjs',
);

it('installs alone from its packed tarballs with npm and works', () => {
  const result = spawnSync(process.execPath, [script, '@muster/tools'], {
    encoding: 'utf8',
    timeout: 110_000,
  });
  expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
  expect(result.stdout).toContain(
    'used @muster/tools: Bash, Glob, Grep, Read, Edit, Write; Write, Read and Bash worked; a write outside was refused',
  );
  expect(result.stdout).toMatch(/node_modules holds .*@anthropic-ai\/sdk.*@muster\/tools/);
}, 120_000);
