import type { FileValidator } from './file-validator.js';

/**
 * The validator the doctor uses: the published JSON Schemas (schemas/v1, bundled at build
 * time) through Ajv. Loaded on demand so other commands never pay for compiling schemas.
 */
export async function loadValidator(): Promise<FileValidator> {
  const { createJsonSchemaValidator } = await import('./json-schema-validator.js');
  return createJsonSchemaValidator();
}
