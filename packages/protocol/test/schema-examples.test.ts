// Every example under schemas/examples is checked against both the committed JSON Schema
// (Ajv, draft 2020-12, strict) and the zod schema:
//   <Type>/*.json                   valid: both accept (and zod hands back the same value)
//   <Type>/invalid/*.json           invalid: both refuse
//   <Type>/invalid-semantic/*.json  refused by zod only: rules JSON Schema cannot express
//                                   (listed in each schema's description and PROTOCOL.md)
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  WIRE_SCHEMAS,
  WIRE_TYPE_EXTRA_RULES,
  WIRE_TYPE_NAMES,
  type WireTypeName,
} from '../src/index.js';
import { schemasDirectory } from './reference-folder.js';
import { compileCommittedSchemas, readCommittedSchemas } from './schema-files.js';

const examplesDirectory = path.join(schemasDirectory, 'examples');
const CATEGORIES = ['valid', 'invalid', 'invalid-semantic'] as const;
type Category = (typeof CATEGORIES)[number];

function listExamples(
  typeName: string,
  category: Category,
): Array<{ file: string; value: unknown }> {
  const folder = path.join(examplesDirectory, typeName, category === 'valid' ? '' : category);
  if (!existsSync(folder)) return [];
  return readdirSync(folder)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => ({
      file: path.relative(examplesDirectory, path.join(folder, file)),
      value: JSON.parse(readFileSync(path.join(folder, file), 'utf8')) as unknown,
    }));
}

const { validatorOf } = compileCommittedSchemas();

describe('the committed JSON Schemas', () => {
  it('all compile with Ajv 2020 in strict mode', () => {
    const schemas = readCommittedSchemas();
    expect(schemas.map((schema) => schema.title).sort()).toEqual([...WIRE_TYPE_NAMES].sort());
    for (const typeName of WIRE_TYPE_NAMES) expect(typeof validatorOf(typeName)).toBe('function');
  });
});

describe('schemas/examples', () => {
  it('has a folder for every wire type and nothing else', () => {
    expect(readdirSync(examplesDirectory).sort()).toEqual([...WIRE_TYPE_NAMES].sort());
    for (const typeName of WIRE_TYPE_NAMES) {
      const entries = readdirSync(path.join(examplesDirectory, typeName));
      for (const entry of entries) {
        expect(
          entry.endsWith('.json') || CATEGORIES.includes(entry as Category),
          `${typeName}/${entry}`,
        ).toBe(true);
      }
    }
  });

  it.each(WIRE_TYPE_NAMES.map((name) => [name]))(
    '%s has valid and invalid examples',
    (typeName) => {
      expect(listExamples(typeName, 'valid').length).toBeGreaterThan(0);
      expect(listExamples(typeName, 'invalid').length).toBeGreaterThan(0);
    },
  );

  it('has semantic counter-examples exactly for the types with extra rules', () => {
    const withSemantic = WIRE_TYPE_NAMES.filter(
      (name) => listExamples(name, 'invalid-semantic').length > 0,
    );
    expect(withSemantic.sort()).toEqual(Object.keys(WIRE_TYPE_EXTRA_RULES).sort());
  });

  const cases = WIRE_TYPE_NAMES.flatMap((typeName) =>
    CATEGORIES.flatMap((category) =>
      listExamples(typeName, category).map(
        ({ file, value }) => [file, typeName, category, value] as const,
      ),
    ),
  );

  it.each(cases)('%s', (_file, typeName: WireTypeName, category: Category, value) => {
    const validate = validatorOf(typeName);
    const ajvAccepts = validate(value) === true;
    const zodResult = WIRE_SCHEMAS[typeName].safeParse(value);
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
});
