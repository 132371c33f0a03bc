// Reads the committed JSON Schemas (schemas/v1) for tests that check them with Ajv.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { SCHEMA_VERSION_FOLDER, type WireTypeName } from '../src/index.js';
import { createStrictAjv } from './ajv.js';
import { schemasDirectory } from './reference-folder.js';

/** Every committed schema, parsed. */
export function readCommittedSchemas(): Array<Record<string, unknown>> {
  const folder = path.join(schemasDirectory, SCHEMA_VERSION_FOLDER);
  return readdirSync(folder)
    .filter((file) => file.endsWith('.schema.json'))
    .sort()
    .map(
      (file) =>
        JSON.parse(readFileSync(path.join(folder, file), 'utf8')) as Record<string, unknown>,
    );
}

/** A strict Ajv holding every committed schema, and a lookup of each type's validator. */
export function compileCommittedSchemas() {
  const ajv = createStrictAjv(readCommittedSchemas());
  const validatorOf = (typeName: WireTypeName) => {
    const validate = ajv.getSchema(
      `https://muster.dev/schemas/${SCHEMA_VERSION_FOLDER}/${typeName}.schema.json`,
    );
    if (validate === undefined)
      throw new Error(`No committed schema for ${typeName}; run pnpm schemas.`);
    return validate;
  };
  return { ajv, validatorOf };
}
