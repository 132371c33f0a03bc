// Small pieces the file tools (Read, Write, Edit) share: sizes in words, open errors the model
// can act on, and the JSON Schema a tool sends.
import { ToolError } from '@muster/query';
import { z } from 'zod';

/** `1.5 KiB`, `50.0 MiB`, `12 bytes`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1).replace(/\.0$/u, '')} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/**
 * The JSON Schema of a tool's zod input, as the model gets it: the input side (fields with a
 * default stay optional), without `$schema`.
 */
export function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const rendered = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
  const { $schema: _schema, ...rest } = rendered;
  return rest;
}

/** A `ToolError` for a failed `open()`, saying what was wrong and what to do. */
export function describeFileOpenError(
  error: unknown,
  givenPath: string,
  realPath: string,
): ToolError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const shown = givenPath === realPath ? realPath : `${JSON.stringify(givenPath)} (${realPath})`;
  switch (code) {
    case 'ENOENT':
      return new ToolError(
        `${shown} does not exist. Check the path (Glob can find files by name); to create it, use Write.`,
        'FILE_NOT_FOUND',
        { filePath: realPath },
      );
    case 'EACCES':
    case 'EPERM':
      return new ToolError(`${shown} cannot be opened: permission denied.`, 'PERMISSION_DENIED', {
        filePath: realPath,
      });
    case 'ELOOP':
      return new ToolError(
        `${shown} became a symbolic link after its path was checked; it was not opened. Retry with the link's target.`,
        'SYMLINK_ESCAPES',
        { filePath: realPath },
      );
    case 'EISDIR':
      return new ToolError(`${shown} is a directory, not a file.`, 'IS_A_DIRECTORY', {
        filePath: realPath,
      });
    case 'ENOTDIR':
      return new ToolError(
        `${shown} does not exist: a part of its path is a file, not a directory.`,
        'FILE_NOT_FOUND',
        {
          filePath: realPath,
        },
      );
    default: {
      const message = error instanceof Error ? error.message : String(error);
      return new ToolError(
        `${shown} cannot be opened (${code ?? 'error'}: ${message}).`,
        'FILE_UNREADABLE',
        {
          filePath: realPath,
          errorCode: code,
        },
      );
    }
  }
}
