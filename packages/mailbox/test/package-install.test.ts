// Packs @muster/mailbox with the @muster packages it depends on, installs the tarballs with
// plain npm into an empty folder and uses it there (scripts/check-installable.mjs at the
// repository root, then scripts/installed-check.mjs here): what someone who installs only
// the mailbox gets. Needs the built dist/ folders and the npm registry (for zod).
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const script = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../scripts/check-installable.mjs',
);

it('installs alone from its packed tarballs with npm and works', () => {
  const result = spawnSync(process.execPath, [script, '@muster/mailbox'], {
    encoding: 'utf8',
    timeout: 110_000,
  });
  expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
  expect(result.stdout).toContain('used @muster/mailbox: 2 messages sent, read and marked read');
  expect(result.stdout).toContain(
    'used @muster/mailbox: v2 entry written once, the follower recorded the history',
  );
  expect(result.stdout).toContain(
    'node_modules holds @muster/file-lock, @muster/mailbox, @muster/protocol, zod.',
  );
}, 120_000);
