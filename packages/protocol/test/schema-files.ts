// Reads the committed JSON Schemas (schemas/v1, schemas/v2) for tests that check them with Ajv.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { SCHEMA_VERSION_FOLDER } from '../src/index.js';
import { createStrictAjv } from './ajv.js';
import { schemasDirectory } from './reference-folder.js';

/** Every committed schema of one folder (default v1), parsed. */
export function readCommittedSchemas(
  folder: string = SCHEMA_VERSION_FOLDER,
): Array<Record<string, unknown>> {
  const directory = path.join(schemasDirectory, folder);
  return readdirSync(directory)
    .filter((file) => file.endsWith('.schema.json'))
    .sort()
    .map(
      (file) =>
        JSON.parse(readFileSync(path.join(directory, file), 'utf8')) as Record<string, unknown>,
    );
}

/** A strict Ajv holding every committed schema of one folder, and a lookup of each validator. */
export function compileCommittedSchemas(folder: string = SCHEMA_VERSION_FOLDER) {
  const ajv = createStrictAjv(readCommittedSchemas(folder));
  const validatorOf = (typeName: string) => {
    const validate = ajv.getSchema(`https://muster.dev/schemas/${folder}/${typeName}.schema.json`);
    if (validate === undefined)
      throw new Error(
        `No committed schema for ${typeName} in schemas/${folder}; run pnpm schemas.`,
      );
    return validate;
  };
  return { ajv, validatorOf };
}
