import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
// The published schemas are bundled into the CLI at build time (esbuild inlines JSON), so
// the doctor validates with exactly the files in schemas/v1 that it was built with.
import inboxSchema from '../../../../schemas/v1/Inbox.schema.json' with { type: 'json' };
import inboxMessageSchema from '../../../../schemas/v1/InboxMessage.schema.json' with { type: 'json' };
import taskSchema from '../../../../schemas/v1/Task.schema.json' with { type: 'json' };
import teamConfigSchema from '../../../../schemas/v1/TeamConfig.schema.json' with { type: 'json' };
import inboxSchemaV2 from '../../../../schemas/v2/Inbox.schema.json' with { type: 'json' };
import inboxMessageSchemaV2 from '../../../../schemas/v2/InboxMessage.schema.json' with { type: 'json' };
import taskSchemaV2 from '../../../../schemas/v2/Task.schema.json' with { type: 'json' };
import teamConfigSchemaV2 from '../../../../schemas/v2/TeamConfig.schema.json' with { type: 'json' };
import type { FileSchemaName, FileValidator, SchemaDialect } from './file-validator.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

const SCHEMAS: Record<SchemaDialect, Record<FileSchemaName, object>> = {
  v1: {
    TeamConfig: teamConfigSchema,
    Inbox: inboxSchema,
    InboxMessage: inboxMessageSchema,
    Task: taskSchema,
  },
  v2: {
    TeamConfig: teamConfigSchemaV2,
    Inbox: inboxSchemaV2,
    InboxMessage: inboxMessageSchemaV2,
    Task: taskSchemaV2,
  },
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
 * Validates with the published JSON Schemas of `schemas/v1` and `schemas/v2` (draft 2020-12,
 * Ajv strict), the
 * same files a client in another language validates with.
 */
export function createJsonSchemaValidator(): FileValidator {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv);
  const compiled = new Map<string, ValidateFunction>();
  const validatorFor = (name: FileSchemaName, dialect: SchemaDialect) => {
    let validate = compiled.get(`${dialect}/${name}`);
    if (validate === undefined) {
      validate = ajv.compile(SCHEMAS[dialect][name]);
      compiled.set(`${dialect}/${name}`, validate);
    }
    return validate;
  };
  return {
    description: 'JSON Schemas of schemas/v1 and schemas/v2',
    validate(name, value, dialect = 'v1') {
      const validate = validatorFor(name, dialect);
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
