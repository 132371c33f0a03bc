/** The file formats the doctor validates. */
export type FileSchemaName = 'TeamConfig' | 'Inbox' | 'InboxMessage' | 'Task';

/** Checks a parsed value against one of the protocol's file formats. */
export interface FileValidator {
  /** How it validates, for the report. */
  description: string;
  /** The problems with the value (`path: message`, at most five); empty when it is valid. */
  validate(schema: FileSchemaName, value: unknown): string[];
}
