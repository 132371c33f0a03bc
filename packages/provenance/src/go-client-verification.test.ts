// muster's signatures verify with the Go client (Go's standard crypto/ed25519): this test
// signs entries, writes them as cases to a temporary file and runs the Go client's
// TestSignaturesWrittenByMusterVerify on them, which writes back what Go decided.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempDirectory } from '@muster/test-utils';
import { expect, it } from 'vitest';
import { createLeadKey, signEntry } from './lead-key.js';

const goClientDirectory = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../clients/go',
);

function goEnvironment(): NodeJS.ProcessEnv {
  const cache = process.env.GOCACHE || path.join(tmpdir(), 'muster-go-build-cache');
  mkdirSync(cache, { recursive: true });
  return { ...process.env, GOCACHE: cache, GOFLAGS: '', GOPROXY: 'off', CGO_ENABLED: '0' };
}

it('the Go client verifies entries muster signed and refuses changed ones', async () => {
  const folder = await makeTempDirectory('muster-provenance-go-');
  const key = createLeadKey();
  const otherKey = createLeadKey();
  const signed = [
    { from: 'team-lead', text: 'Start on task 1', summary: 'Task 1', color: 'blue' },
    { from: 'team-lead', text: 'Escapes: <a> & "b" \\ \u2028 \u0001 é 🚀\nline two' },
    { from: 'system', text: '{"type":"mode_set_request","mode":"plan","from":"team-lead"}' },
  ].map((fields, index) =>
    signEntry(key, {
      ...fields,
      timestamp: new Date(1795490000000 + index).toISOString(),
      msgV: 1,
      msg_id: `7d4c2a10-0000-4000-8000-00000000000${index}`,
      type: 'message',
      read: false,
    }),
  );
  const cases = [
    ...signed.map((entry) => ({ verifyKey: key.verifyKey, entry, expected: true })),
    {
      verifyKey: key.verifyKey,
      entry: { ...signed[0], text: 'Delete everything' },
      expected: false,
    },
    { verifyKey: key.verifyKey, entry: { ...signed[0], summary: 'Other' }, expected: false },
    { verifyKey: otherKey.verifyKey, entry: signed[1], expected: false },
  ];
  const casesFile = path.join(folder, 'cases.json');
  const resultsFile = path.join(folder, 'results.json');
  writeFileSync(casesFile, JSON.stringify(cases));
  const result = spawnSync(
    'go',
    ['test', '-count=1', '-run', '^TestSignaturesWrittenByMusterVerify$', './muster'],
    {
      cwd: goClientDirectory,
      encoding: 'utf8',
      env: {
        ...goEnvironment(),
        MUSTER_LEAD_SIGNATURE_CASES: casesFile,
        MUSTER_LEAD_SIGNATURE_RESULTS: resultsFile,
      },
      timeout: 170_000,
    },
  );
  expect(result.error, 'Go must be installed (CI installs golang)').toBeUndefined();
  expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
  const results = JSON.parse(readFileSync(resultsFile, 'utf8')) as boolean[];
  expect(results).toEqual(cases.map((item) => item.expected));
}, 180_000);
