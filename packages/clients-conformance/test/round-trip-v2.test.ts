// Every schemas/examples/v2 example and every Claude Code 2.1.330 reference file parses with
// the generated v2 types (Python `muster_client.generated.v2`, Go `musterwirev2`) and
// serializes back to an equal JSON value.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  goClientDirectory,
  goEnvironment,
  pythonClientDirectory,
  runProcess,
} from './support/clients.js';
import type { WireCase } from './support/wire-cases.js';
import {
  exampleCasesV2,
  indexTypesV2,
  referenceCasesV2,
  type IndexEntryV2,
} from './support/wire-cases-v2.js';

interface RoundTripResult {
  file: string;
  type: string;
  value?: unknown;
  error?: string;
}

// Resolves ProtocolMessage by the value's `type` (from index.json), then calls the
// generated `<snake_name>_from_dict` and `_to_dict`.
const pythonRoundTrip = `
import json, re, sys
from muster_client.generated.v2 import wire_types
types = json.load(open(sys.argv[1]))
by_message = {t["messageType"]: t["name"] for t in types if t["kind"] == "message"}
results = []
for item in json.load(sys.stdin):
    name = item["type"]
    try:
        with open(item["file"], encoding="utf-8") as handle:
            value = json.load(handle)
        if name == "ProtocolMessage":
            name = by_message[value["type"]]
        stem = re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()
        typed = getattr(wire_types, stem + "_from_dict")(value)
        results.append({"file": item["file"], "type": item["type"], "value": getattr(wire_types, stem + "_to_dict")(typed)})
    except Exception as error:
        results.append({"file": item["file"], "type": item["type"], "error": repr(error)})
print(json.dumps(results))
`;

/** A Go program in its own module that round-trips through musterwirev2. */
function goRoundTrip(types: IndexEntryV2[]): string {
  const entries = types
    .filter((type) => type.kind !== 'message-union')
    .map(
      (type) =>
        `\t${JSON.stringify(type.name)}: func(data []byte) ([]byte, error) {\n` +
        `\t\tvalue, err := musterwirev2.Unmarshal${type.name}(data)\n` +
        '\t\tif err != nil {\n\t\t\treturn nil, err\n\t\t}\n' +
        '\t\treturn json.Marshal(&value)\n\t},',
    )
    .join('\n');
  const messages = types
    .filter((type) => type.kind === 'message')
    .map((type) => `\t${JSON.stringify(type.messageType)}: ${JSON.stringify(type.name)},`)
    .join('\n');
  return `package main

import (
	"encoding/json"
	"fmt"
	"os"

	"muster.dev/clients/go/musterwirev2"
)

var roundTrips = map[string]func([]byte) ([]byte, error){
${entries}
}

var messageNames = map[string]string{
${messages}
}

func main() {
	var requests []struct {
		Type string \`json:"type"\`
		File string \`json:"file"\`
	}
	if err := json.NewDecoder(os.Stdin).Decode(&requests); err != nil {
		panic(err)
	}
	results := []map[string]any{}
	for _, request := range requests {
		result := map[string]any{"file": request.File, "type": request.Type}
		data, err := os.ReadFile(request.File)
		name := request.Type
		if err == nil && name == "ProtocolMessage" {
			var probe struct{ Type string \`json:"type"\` }
			err = json.Unmarshal(data, &probe)
			name = messageNames[probe.Type]
		}
		if err == nil {
			var encoded []byte
			roundTrip, known := roundTrips[name]
			if !known {
				err = fmt.Errorf("no generated type %q", name)
			} else if encoded, err = roundTrip(data); err == nil {
				var value any
				err = json.Unmarshal(encoded, &value)
				result["value"] = value
			}
		}
		if err != nil {
			result["error"] = err.Error()
		}
		results = append(results, result)
	}
	out, _ := json.Marshal(results)
	fmt.Println(string(out))
}
`;
}

let scratch: string;
let cases: WireCase[];
let goBinary: string;
let typesFile: string;

beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), 'muster-round-trip-v2-'));
  cases = [...exampleCasesV2(), ...referenceCasesV2(scratch)];
  const types = indexTypesV2();
  typesFile = path.join(scratch, 'types.json');
  await writeFile(typesFile, JSON.stringify(types));
  const module = path.join(scratch, 'roundtrip');
  await mkdir(module);
  await writeFile(
    path.join(module, 'go.mod'),
    `module roundtrip\n\ngo 1.19\n\nrequire muster.dev/clients/go v0.0.0\n\nreplace muster.dev/clients/go => ${goClientDirectory}\n`,
  );
  await writeFile(path.join(module, 'main.go'), goRoundTrip(types));
  goBinary = path.join(scratch, 'roundtrip-v2');
  await runProcess('go', ['build', '-o', goBinary, '.'], {
    cwd: module,
    env: { ...goEnvironment(), GOFLAGS: '-mod=mod' },
  });
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
    expect(result.value, `${wireCase.type} ${wireCase.file}`).toStrictEqual(original);
  }
}

describe('generated v2 wire types', () => {
  it('cover the v2 examples, the 2.1.330 state files, entries and payloads', () => {
    const count = (origin: WireCase['origin']) =>
      cases.filter((wireCase) => wireCase.origin === origin).length;
    expect(count('example')).toBeGreaterThan(60);
    // 3 configs, 9 inboxes, 9 tasks, 22 protocol entries and the signature example's entry.
    expect(count('reference')).toBe(44);
    expect(count('reference-payload')).toBeGreaterThan(15);
  });

  it('round-trip through the generated Python dataclasses', async () => {
    const { stdout } = await runProcess('python3', ['-c', pythonRoundTrip, typesFile], {
      cwd: pythonClientDirectory,
      input: request(),
    });
    await checkRoundTrips(JSON.parse(stdout));
  });

  it('round-trip through the generated Go structs', async () => {
    const { stdout } = await runProcess(goBinary, [], { input: request() });
    await checkRoundTrips(JSON.parse(stdout));
  });

  it('refuse a v2 inbox entry without msg_id in both languages', async () => {
    const entry = JSON.parse(
      await readFile(cases.find((wireCase) => wireCase.type === 'InboxMessage')!.file, 'utf8'),
    ) as Record<string, unknown>;
    delete entry.msg_id;
    const file = path.join(scratch, 'without-msg-id.json');
    await writeFile(file, JSON.stringify(entry));
    const input = JSON.stringify([{ type: 'InboxMessage', file }]);
    const python = await runProcess('python3', ['-c', pythonRoundTrip, typesFile], {
      cwd: pythonClientDirectory,
      input,
    });
    expect((JSON.parse(python.stdout) as RoundTripResult[])[0]!.error).toBeDefined();
    // Go's encoding/json does not enforce required keys: the struct reads an empty msg_id,
    // and writes it back, so the value no longer equals the entry.
    const go = await runProcess(goBinary, [], { input });
    const [result] = JSON.parse(go.stdout) as RoundTripResult[];
    expect(result!.value).not.toStrictEqual(entry);
  });
});
