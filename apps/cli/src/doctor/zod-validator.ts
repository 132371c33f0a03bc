import {
  InboxMessageSchema,
  InboxSchema,
  safeValidate,
  TaskSchema,
  TeamConfigSchema,
} from '@muster/protocol';

import type { FileValidator } from './file-validator.js';

const SCHEMAS = {
  TeamConfig: TeamConfigSchema,
  Inbox: InboxSchema,
  InboxMessage: InboxMessageSchema,
  Task: TaskSchema,
} as const;

/** Validates with the zod schemas of `@muster/protocol` (the source the JSON Schemas come from). */
export function createZodValidator(): FileValidator {
  return {
    description: 'zod schemas of @muster/protocol',
    validate(schema, value) {
      const result = safeValidate(value, SCHEMAS[schema], schema);
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
