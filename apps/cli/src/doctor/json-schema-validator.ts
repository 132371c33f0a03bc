import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
// The published schemas are bundled into the CLI at build time (esbuild inlines JSON), so
// the doctor validates with exactly the files in schemas/v1 that it was built with.
import inboxSchema from '../../../../schemas/v1/Inbox.schema.json' with { type: 'json' };
import inboxMessageSchema from '../../../../schemas/v1/InboxMessage.schema.json' with { type: 'json' };
import taskSchema from '../../../../schemas/v1/Task.schema.json' with { type: 'json' };
import teamConfigSchema from '../../../../schemas/v1/TeamConfig.schema.json' with { type: 'json' };
import type { FileSchemaName, FileValidator } from './file-validator.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

const SCHEMAS: Record<FileSchemaName, object> = {
  TeamConfig: teamConfigSchema,
  Inbox: inboxSchema,
  InboxMessage: inboxMessageSchema,
  Task: taskSchema,
};

function describeError(error: ErrorObject): string {
  const where =
    error.instancePath === '' ? '(top level)' : error.instancePath.slice(1).replaceAll('/', '.');
  const extra =
    error.keyword === 'enum'
      ? ` (${(error.params as { allowedValues: unknown[] }).allowedValues.map((value) => JSON.stringify(value)).join(', ')})`
      : '';
  return `${where}: ${error.message ?? error.keyword}${extra}`;
}

/**
 * Validates with the published JSON Schemas of `schemas/v1` (draft 2020-12, Ajv strict), the
 * same files a client in another language validates with.
 */
export function createJsonSchemaValidator(): FileValidator {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv);
  const compiled = new Map<FileSchemaName, ValidateFunction>();
  const validatorFor = (name: FileSchemaName) => {
    let validate = compiled.get(name);
    if (validate === undefined) {
      validate = ajv.compile(SCHEMAS[name]);
      compiled.set(name, validate);
    }
    return validate;
  };
  return {
    description: 'JSON Schemas of schemas/v1',
    validate(name, value) {
      const validate = validatorFor(name);
      if (validate(value)) return [];
      const seen = new Set<string>();
      const problems: string[] = [];
      for (const error of validate.errors ?? []) {
        const text = describeError(error);
        if (seen.has(text)) continue;
        seen.add(text);
        problems.push(text);
      }
      return problems.slice(0, 5);
    },
  };
}
