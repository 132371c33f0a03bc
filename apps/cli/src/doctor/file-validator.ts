/** The file formats the doctor validates. */
export type FileSchemaName = 'TeamConfig' | 'Inbox' | 'InboxMessage' | 'Task';

/**
 * Which published schemas to validate with: `v1` (schemas/v1, Claude Code 2.1.45's files)
 * or `v2` (schemas/v2, Claude Code 2.1.330's and muster's `protocolVersion: 2` teams).
 */
export type SchemaDialect = 'v1' | 'v2';

/** Checks a parsed value against one of the protocol's file formats. */
export interface FileValidator {
  /** How it validates, for the report. */
  description: string;
  /** The problems with the value (`path: message`, at most five); empty when it is valid. */
  validate(schema: FileSchemaName, value: unknown, dialect?: SchemaDialect): string[];
}
