// Packs @muster/protocol, installs it with plain npm into an empty folder and imports it
// (scripts/check-installable.mjs at the repository root, then scripts/installed-check.mjs
// here). Needs the built dist/ (turbo builds before testing) and the npm registry (for zod).
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const script = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../scripts/check-installable.mjs',
);

it('installs from its packed tarball with npm, imports, and depends on zod only', () => {
  const result = spawnSync(process.execPath, [script, '@muster/protocol'], {
    encoding: 'utf8',
    timeout: 110_000,
  });
  expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
  expect(result.stdout).toMatch(/imported @muster\/protocol \d+\.\d+\.\d+/);
  expect(result.stdout).toContain('node_modules holds @muster/protocol, zod.');
}, 120_000);
