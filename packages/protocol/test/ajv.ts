// One strict Ajv (draft 2020-12) setup for every test that validates with the JSON Schemas.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/** A strict draft 2020-12 validator with the standard formats, holding the given schemas. */
export function createStrictAjv(schemas: ReadonlyArray<Record<string, unknown>> = []): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv);
  for (const schema of schemas) ajv.addSchema(schema);
  return ajv;
}
