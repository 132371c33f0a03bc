// Every example under schemas/examples (v1) and schemas/examples/v2 (v2) is checked against
// both the committed JSON Schema of its folder (Ajv, draft 2020-12, strict) and the zod schema:
//   <Type>/*.json                   valid: both accept (and zod hands back the same value)
//   <Type>/invalid/*.json           invalid: both refuse
//   <Type>/invalid-semantic/*.json  refused by zod only: rules JSON Schema cannot express
//                                   (listed in each schema's description and PROTOCOL.md)
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SCHEMA_SET_V1, SCHEMA_SET_V2, type SchemaSet } from '../scripts/schema-generation.js';
import { schemasDirectory } from './reference-folder.js';
import { compileCommittedSchemas, readCommittedSchemas } from './schema-files.js';

const CATEGORIES = ['valid', 'invalid', 'invalid-semantic'] as const;
type Category = (typeof CATEGORIES)[number];

/** Where each folder's examples live; v2's sit in a `v2` folder inside v1's. */
const examplesOf = [
  [SCHEMA_SET_V1, path.join(schemasDirectory, 'examples')],
  [SCHEMA_SET_V2, path.join(schemasDirectory, 'examples', 'v2')],
] as const;

function listExamples(
  examplesDirectory: string,
  typeName: string,
  category: Category,
): Array<{ file: string; value: unknown }> {
  const folder = path.join(examplesDirectory, typeName, category === 'valid' ? '' : category);
  if (!existsSync(folder)) return [];
  return readdirSync(folder)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => ({
      file: path.relative(schemasDirectory, path.join(folder, file)),
      value: JSON.parse(readFileSync(path.join(folder, file), 'utf8')) as unknown,
    }));
}

describe.each(examplesOf.map(([set, directory]) => [set.folder, set, directory] as const))(
  'schemas/%s and its examples',
  (folder, set: SchemaSet, examplesDirectory) => {
    const { validatorOf } = compileCommittedSchemas(folder);
    const typeNames = Object.keys(set.schemas);

    it('every committed JSON Schema compiles with Ajv 2020 in strict mode', () => {
      const schemas = readCommittedSchemas(folder);
      expect(schemas.map((schema) => schema.title).sort()).toEqual([...typeNames].sort());
      for (const typeName of typeNames) expect(typeof validatorOf(typeName)).toBe('function');
    });

    it('has an example folder for every wire type and nothing else', () => {
      const entries = readdirSync(examplesDirectory).filter(
        (entry) => !(folder === 'v1' && entry === 'v2'),
      );
      expect(entries.sort()).toEqual([...typeNames].sort());
      for (const typeName of typeNames) {
        for (const entry of readdirSync(path.join(examplesDirectory, typeName))) {
          expect(
            entry.endsWith('.json') || CATEGORIES.includes(entry as Category),
            `${typeName}/${entry}`,
          ).toBe(true);
        }
      }
    });

    it.each(typeNames.map((name) => [name]))('%s has valid and invalid examples', (typeName) => {
      expect(listExamples(examplesDirectory, typeName, 'valid').length).toBeGreaterThan(0);
      expect(listExamples(examplesDirectory, typeName, 'invalid').length).toBeGreaterThan(0);
    });

    it('has semantic counter-examples exactly for the types with extra rules', () => {
      const withSemantic = typeNames.filter(
        (name) => listExamples(examplesDirectory, name, 'invalid-semantic').length > 0,
      );
      expect(withSemantic.sort()).toEqual(Object.keys(set.extraRules).sort());
    });

    const cases = typeNames.flatMap((typeName) =>
      CATEGORIES.flatMap((category) =>
        listExamples(examplesDirectory, typeName, category).map(
          ({ file, value }) => [file, typeName, category, value] as const,
        ),
      ),
    );

    it.each(cases)('%s', (_file, typeName: string, category: Category, value) => {
      const validate = validatorOf(typeName);
      const ajvAccepts = validate(value) === true;
      const zodResult = set.schemas[typeName]!.safeParse(value);
      switch (category) {
        case 'valid':
          expect(ajvAccepts, JSON.stringify(validate.errors)).toBe(true);
          expect(zodResult.success, JSON.stringify(zodResult.error?.issues)).toBe(true);
          expect(zodResult.data).toEqual(value);
          break;
        case 'invalid':
          expect(ajvAccepts, 'Ajv accepted an invalid example').toBe(false);
          expect(zodResult.success, 'zod accepted an invalid example').toBe(false);
          break;
        case 'invalid-semantic':
          expect(ajvAccepts, 'Ajv refuses this one: move it to invalid/').toBe(true);
          expect(zodResult.success, 'zod accepted a semantic counter-example').toBe(false);
          for (const issue of zodResult.error?.issues ?? []) expect(issue.code).toBe('custom');
          break;
      }
    });
  },
);
