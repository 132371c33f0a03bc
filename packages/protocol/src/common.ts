import { z } from 'zod';

/** ISO-8601 timestamp with milliseconds and `Z`, as `new Date().toISOString()` writes it. */
export const IsoTimestampSchema = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/, {
    message: 'expected an ISO-8601 timestamp such as 2026-01-31T12:00:00.000Z',
  });

/** Milliseconds since the Unix epoch. */
export const EpochMillisecondsSchema = z.number().int().nonnegative();

/** Permission modes an agent can run in. */
export const PERMISSION_MODES = [
  'default',
  'acceptEdits',
  'bypassPermissions',
  'plan',
  'delegate',
  'dontAsk',
] as const;

/** How an agent decides whether a tool call may run without asking. */
export const PermissionModeSchema = z.enum(PERMISSION_MODES).meta({
  id: 'PermissionMode',
  description:
    'How an agent decides whether a tool call may run without asking: default (ask for risky tools), acceptEdits (file edits allowed), bypassPermissions (everything allowed), plan (read-only until a plan is approved), delegate (coordination tools only), dontAsk (refuse instead of asking).',
});
export type PermissionMode = z.infer<typeof PermissionModeSchema>;

/** Execution backends a teammate can run in. */
export const BACKEND_TYPES = ['in-process', 'tmux', 'iterm2', 'pty'] as const;

/** Where a teammate's process runs. `pty` is muster's own; Claude Code writes the others. */
export const BackendTypeSchema = z.enum(BACKEND_TYPES).meta({
  id: 'BackendType',
  description:
    'Where a teammate process runs: in-process (inside the lead), tmux or iterm2 (a terminal pane), pty (a muster child process on a pseudo-terminal).',
});
export type BackendType = z.infer<typeof BackendTypeSchema>;

/** A hex SHA-256 digest as Claude Code 2.1.330 writes it: 64 lowercase hexadecimal characters. */
export const SHA256_HEX_PATTERN = /^[0-9a-f]{64}$/;
