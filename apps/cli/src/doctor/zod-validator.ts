import {
  InboxMessageSchema,
  InboxSchema,
  safeValidate,
  TaskSchema,
  TeamConfigSchema,
  WIRE_SCHEMAS_V2,
} from '@muster/protocol';

import type { FileValidator } from './file-validator.js';

const SCHEMAS = {
  v1: {
    TeamConfig: TeamConfigSchema,
    Inbox: InboxSchema,
    InboxMessage: InboxMessageSchema,
    Task: TaskSchema,
  },
  v2: {
    TeamConfig: WIRE_SCHEMAS_V2.TeamConfig,
    Inbox: WIRE_SCHEMAS_V2.Inbox,
    InboxMessage: WIRE_SCHEMAS_V2.InboxMessage,
    Task: WIRE_SCHEMAS_V2.Task,
  },
} as const;

/** Validates with the zod schemas of `@muster/protocol` (the source the JSON Schemas come from). */
export function createZodValidator(): FileValidator {
  return {
    description: 'zod schemas of @muster/protocol',
    validate(schema, value, dialect = 'v1') {
      const result = safeValidate(value, SCHEMAS[dialect][schema], schema);
      if (result.success) return [];
      const details = result.error.details as {
        issues?: { path: PropertyKey[]; message: string }[];
      };
      return (details.issues ?? [{ path: [], message: result.error.message }])
        .slice(0, 5)
        .map(
          (issue) =>
            `${issue.path.length ? issue.path.join('.') : '(top level)'}: ${issue.message}`,
        );
    },
  };
}
