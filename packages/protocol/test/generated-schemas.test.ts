// schemas/v1 is generated from the zod schemas and committed. This fails when the two
// differ: run `pnpm schemas` and commit the result.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateSchemaFiles } from '../scripts/schema-generation.js';
import { SCHEMA_VERSION_FOLDER, WIRE_TYPE_NAMES } from '../src/index.js';
import { schemasDirectory } from './reference-folder.js';

const generated = generateSchemaFiles();
const hint = 'schemas/ is out of date: run `pnpm schemas` and commit the result.';

describe(`schemas/${SCHEMA_VERSION_FOLDER}`, () => {
  it('holds exactly the generated files', () => {
    const folder = path.join(schemasDirectory, SCHEMA_VERSION_FOLDER);
    expect(existsSync(folder), hint).toBe(true);
    const onDisk = readdirSync(folder).map((file) => `${SCHEMA_VERSION_FOLDER}/${file}`);
    expect(onDisk.sort(), hint).toEqual([...generated.keys()].sort());
    expect(generated.size).toBe(WIRE_TYPE_NAMES.length + 1);
  });

  it.each([...generated.keys()].map((file) => [file]))('%s matches the zod schemas', (file) => {
    const committed = readFileSync(path.join(schemasDirectory, file), 'utf8');
    expect(committed, hint).toBe(generated.get(file));
  });

  it('is deterministic', () => {
    expect([...generateSchemaFiles()]).toEqual([...generated]);
  });

  it('gives every schema a stable $id, a title and a description, and no outside $ref', () => {
    for (const typeName of WIRE_TYPE_NAMES) {
      const text = generated.get(`${SCHEMA_VERSION_FOLDER}/${typeName}.schema.json`)!;
      expect(text.endsWith('}\n')).toBe(true);
      const schema = JSON.parse(text) as Record<string, unknown>;
      expect(Object.keys(schema).slice(0, 4)).toEqual(['$schema', '$id', 'title', 'description']);
      expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(schema.$id).toBe(`https://muster.dev/schemas/v1/${typeName}.schema.json`);
      expect(schema.title).toBe(typeName);
      const references = [...text.matchAll(/"\$ref": "([^"]*)"/g)].map((match) => match[1]!);
      for (const reference of references) expect(reference).toMatch(/^#(\/\$defs\/[A-Za-z]+)?$/);
    }
  });

  it('keeps unknown fields allowed on files and messages, refused on tool inputs', () => {
    const additional = (typeName: string) =>
      (
        JSON.parse(generated.get(`${SCHEMA_VERSION_FOLDER}/${typeName}.schema.json`)!) as {
          additionalProperties?: unknown;
        }
      ).additionalProperties;
    expect(additional('TeamConfig')).toEqual({});
    expect(additional('Task')).toEqual({});
    expect(additional('ShutdownRequest')).toEqual({});
    expect(additional('SendMessageInput')).toBe(false);
    expect(additional('AgentInput')).toBe(false);
  });
});
