// Every valid example and every Claude Code reference file parses with the generated
// Python and Go types and serializes back to an equal JSON value.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildGoClient, runProcess, pythonClientDirectory } from './support/clients.js';
import { exampleCases, referenceCases, type WireCase } from './support/wire-cases.js';

interface RoundTripResult {
  file: string;
  type: string;
  value?: unknown;
  error?: string;
}

let scratch: string;
let cases: WireCase[];
let untypedReferenceFiles: string[];
let goBinary: string;

beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), 'muster-round-trip-'));
  const reference = referenceCases(scratch);
  cases = [...exampleCases(), ...reference.cases];
  untypedReferenceFiles = reference.untyped;
  goBinary = await buildGoClient(scratch);
});

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

const request = () => JSON.stringify(cases.map(({ type, file }) => ({ type, file })));

async function checkRoundTrips(results: RoundTripResult[]): Promise<void> {
  expect(results).toHaveLength(cases.length);
  for (const [position, wireCase] of cases.entries()) {
    const result = results[position]!;
    expect(result.file).toBe(wireCase.file);
    expect(result.error, `${wireCase.type} ${wireCase.file}`).toBeUndefined();
    const original = JSON.parse(await readFile(wireCase.file, 'utf8'));
    // Everything comes back, keys the schema does not declare included (examples such as
    // InboxMessage/with-unknown-field carry some on purpose).
    expect(result.value, `${wireCase.type} ${wireCase.file}`).toStrictEqual(original);
  }
}

describe('generated wire types', () => {
  it('cover every example and every reference file', () => {
    const origins = new Set(cases.map((wireCase) => wireCase.origin));
    expect([...origins].sort()).toEqual([
      'example',
      'reference',
      'reference-payload',
      'reference-tool',
    ]);
    expect(cases.filter((wireCase) => wireCase.origin === 'example').length).toBeGreaterThan(60);
    expect(cases.filter((wireCase) => wireCase.origin === 'reference').length).toBeGreaterThan(25);
    expect(
      cases.filter((wireCase) => wireCase.origin === 'reference-payload').length,
    ).toBeGreaterThan(20);
    expect(cases.filter((wireCase) => wireCase.origin === 'reference-tool')).toHaveLength(8);
    // The only reference file without a wire type: plan mode's own tool, which is not part
    // of the team protocol.
    expect(untypedReferenceFiles).toEqual(['tools/ExitPlanMode.input_schema.json']);
  });

  it('round-trip through the generated Python dataclasses', async () => {
    const { stdout } = await runProcess('python3', ['-m', 'muster_client', 'roundtrip'], {
      cwd: pythonClientDirectory,
      input: request(),
    });
    await checkRoundTrips(JSON.parse(stdout));
  });

  it('round-trip through the generated Go structs', async () => {
    const { stdout } = await runProcess(goBinary, ['roundtrip'], { input: request() });
    await checkRoundTrips(JSON.parse(stdout));
  });

  it('keep optional empty arrays and maps, free-form metadata, and keys differing only in case', async () => {
    const reference = cases.find((c) => c.origin === 'reference' && c.type === 'TeamConfig')!;
    const config = JSON.parse(await readFile(reference.file, 'utf8'));
    const edges = [
      { type: 'TeamConfig', value: { ...config, hiddenPaneIds: [], teamAllowedPaths: [] } },
      {
        type: 'Task',
        value: {
          id: '9',
          subject: 's',
          description: 'd',
          status: 'pending',
          blocks: [],
          blockedBy: [],
          metadata: {},
        },
      },
      {
        type: 'Task',
        value: {
          id: '9',
          subject: 's',
          description: 'd',
          status: 'pending',
          blocks: [],
          blockedBy: [],
          metadata: { _internal: true, priority: 'low', nested: { a: [1, 2.5] } },
        },
      },
      {
        type: 'TaskUpdateInput',
        value: { taskId: '9', addBlocks: [], addBlockedBy: [], metadata: {} },
      },
      {
        // Keys that differ from declared ones only in case are undeclared keys, kept as
        // they are (Go's encoding/json would otherwise read "From" into From).
        type: 'InboxMessage',
        value: {
          from: 'alpha',
          text: 'hi',
          timestamp: '2026-01-31T12:00:00.000Z',
          read: false,
          From: 'someone else',
          extra: { nested: [1, null, 'x'] },
        },
      },
    ];
    const requests = await Promise.all(
      edges.map(async (edge, position) => {
        const file = path.join(scratch, `edge-${position}.json`);
        await writeFile(file, JSON.stringify(edge.value));
        return { type: edge.type, file };
      }),
    );
    const python = await runProcess('python3', ['-m', 'muster_client', 'roundtrip'], {
      cwd: pythonClientDirectory,
      input: JSON.stringify(requests),
    });
    const go = await runProcess(goBinary, ['roundtrip'], { input: JSON.stringify(requests) });
    for (const output of [python.stdout, go.stdout]) {
      const results = JSON.parse(output) as RoundTripResult[];
      expect(results.map((result) => result.value)).toStrictEqual(edges.map((edge) => edge.value));
    }
  });

  it('report a value that does not fit instead of passing it through', async () => {
    const { stdout } = await runProcess('python3', ['-m', 'muster_client', 'roundtrip'], {
      cwd: pythonClientDirectory,
      input: JSON.stringify([
        { type: 'TeamConfig', file: cases.find((c) => c.type === 'Inbox')!.file },
      ]),
    });
    expect(JSON.parse(stdout)[0].error).toMatch(/TeamConfig/);
    const go = await runProcess(goBinary, ['roundtrip'], {
      input: JSON.stringify([
        { type: 'TeamConfig', file: cases.find((c) => c.type === 'Inbox')!.file },
      ]),
    });
    expect(JSON.parse(go.stdout)[0].error).toMatch(/cannot unmarshal array/);
  });
});
