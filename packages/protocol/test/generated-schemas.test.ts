// schemas/v1 and schemas/v2 are generated from the zod schemas and committed. This fails
// when the two differ: run `pnpm schemas` and commit the result.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateSchemaFiles, SCHEMA_SETS } from '../scripts/schema-generation.js';
import { schemasDirectory } from './reference-folder.js';

const hint = 'schemas/ is out of date: run `pnpm schemas` and commit the result.';

describe.each(SCHEMA_SETS.map((set) => [set.folder, set]))('schemas/%s', (folder, set) => {
  const generated = generateSchemaFiles(set);
  const typeNames = Object.keys(set.schemas);

  it('holds exactly the generated files', () => {
    const directory = path.join(schemasDirectory, folder);
    expect(existsSync(directory), hint).toBe(true);
    const onDisk = readdirSync(directory).map((file) => `${folder}/${file}`);
    expect(onDisk.sort(), hint).toEqual([...generated.keys()].sort());
    expect(generated.size).toBe(typeNames.length + 1);
  });

  it.each([...generated.keys()].map((file) => [file]))('%s matches the zod schemas', (file) => {
    const committed = readFileSync(path.join(schemasDirectory, file), 'utf8');
    expect(committed, hint).toBe(generated.get(file));
  });

  it('is deterministic', () => {
    expect([...generateSchemaFiles(set)]).toEqual([...generated]);
  });

  it('gives every schema a stable $id, a title and a description, and no outside $ref', () => {
    for (const typeName of typeNames) {
      const text = generated.get(`${folder}/${typeName}.schema.json`)!;
      expect(text.endsWith('}\n')).toBe(true);
      const schema = JSON.parse(text) as Record<string, unknown>;
      expect(Object.keys(schema).slice(0, 4)).toEqual(['$schema', '$id', 'title', 'description']);
      expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(schema.$id).toBe(`https://muster.dev/schemas/${folder}/${typeName}.schema.json`);
      expect(schema.title).toBe(typeName);
      const references = [...text.matchAll(/"\$ref": "([^"]*)"/g)].map((match) => match[1]!);
      for (const reference of references) expect(reference).toMatch(/^#(\/\$defs\/[A-Za-z]+)?$/);
    }
  });

  it('keeps unknown fields allowed on files and messages, refused on tool inputs', () => {
    const additional = (typeName: string) =>
      (
        JSON.parse(generated.get(`${folder}/${typeName}.schema.json`)!) as {
          additionalProperties?: unknown;
        }
      ).additionalProperties;
    expect(additional('TeamConfig')).toEqual({});
    expect(additional('TeamMember')).toEqual({});
    expect(additional('InboxMessage')).toEqual({});
    expect(additional('Task')).toEqual({});
    expect(additional('ShutdownRequest')).toEqual({});
    expect(additional('SendMessageInput')).toBe(false);
    expect(additional('AgentInput')).toBe(false);
  });
});

describe('schemas/v2 against schemas/v1', () => {
  const [v1, v2] = SCHEMA_SETS.map((set) => generateSchemaFiles(set));
  const required = (files: Map<string, string>, file: string) =>
    (JSON.parse(files.get(file)!) as { required?: string[] }).required ?? [];

  it('requires msgV, msg_id and type on v2 inbox entries only', () => {
    expect(required(v1!, 'v1/InboxMessage.schema.json')).not.toContain('msg_id');
    expect(required(v2!, 'v2/InboxMessage.schema.json')).toEqual(
      expect.arrayContaining(['from', 'text', 'timestamp', 'msgV', 'msg_id', 'type', 'read']),
    );
  });

  it('indexes Claude Code 2.1.330 for v2 and 2.1.45 for v1', () => {
    const index = (files: Map<string, string>, folder: string) =>
      JSON.parse(files.get(`${folder}/index.json`)!) as Record<string, unknown>;
    expect(index(v1!, 'v1')).toMatchObject({
      schemaVersion: 'v1',
      claudeCodeCompatibleVersion: '2.1.45',
    });
    expect(index(v2!, 'v2')).toMatchObject({
      schemaVersion: 'v2',
      claudeCodeCompatibleVersion: '2.1.330',
      toolNames: ['Agent', 'SendMessage', 'TaskCreate', 'TaskGet', 'TaskUpdate', 'TaskList'],
    });
  });
});
