import { appendFile, mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { createRootLayout } from '@muster/protocol';
import { PermissionsError } from './permissions-error.js';

/** File name of the audit log in a team's sidecar folder (`teams/{team}/.muster/`). */
export const AUDIT_LOG_FILE_NAME = 'permission-audit.jsonl';

/** What happened. */
export type AuditEventKind =
  /** A local decision (allow / deny / ask) by the decision function. */
  | 'decision'
  /** A worker sent a permission_request. */
  | 'permission_requested'
  /** The lead approved a permission_request. */
  | 'permission_approved'
  /** The lead denied a permission_request. */
  | 'permission_denied'
  /** A worker received the answer to its request (or gave up waiting). */
  | 'permission_answer_received'
  /** A request timed out on the worker's side. */
  | 'permission_timed_out'
  /** Rules persisted into the lead's context (with the mode preserved). */
  | 'rules_persisted'
  /** A directory approved for the whole team. */
  | 'team_path_added'
  /** A plan was submitted for approval. */
  | 'plan_submitted'
  /** The lead approved a plan. */
  | 'plan_approved'
  /** The lead rejected a plan. */
  | 'plan_rejected'
  /** A worker applied the answer to its plan. */
  | 'plan_answer_received'
  /** The lead set a worker's mode. */
  | 'mode_set'
  /** A worker switched mode after a mode_set_request. */
  | 'mode_applied'
  /**
   * A message was ignored: an answer from someone other than the lead, or an unknown id.
   * Written by earlier versions; members now record these as `control_refused`.
   */
  | 'message_ignored'
  /**
   * A member refused a lead control message: not verifiably from its lead's runtime (forged,
   * unverifiable, replayed, from another sender), or verified but not applicable (no such
   * pending request, other input than asked). `subject` is who the entry claimed to be from,
   * `outcome` the verdict, `detail` why; `data` has the type, msg_id and whether it was signed.
   */
  | 'control_refused';

/** One line of the audit log. */
export interface AuditEntry {
  /** ISO-8601 time of the event. */
  timestamp: string;
  kind: AuditEventKind;
  /** Team the event belongs to. */
  team: string;
  /** Who acted (decided, approved, sent). */
  actor: string;
  /** On whose behalf, or whom it concerns (the worker asking). */
  subject?: string;
  /** The request id, when there is one. */
  requestId?: string;
  /** The tool concerned. */
  toolName?: string;
  /** allow / deny / ask, approved / rejected … */
  outcome?: string;
  /** Why, in words. */
  detail?: string;
  /** Anything else worth keeping (inputs are shortened). */
  data?: Record<string, unknown>;
}

/** Where entries go. */
export interface AuditSink {
  /** Appends one entry. Fails loudly (`IO_ERROR`) when it cannot write. */
  append(entry: Omit<AuditEntry, 'timestamp' | 'team'> & { timestamp?: string }): Promise<void>;
}

const MAXIMUM_STRING_LENGTH = 1000;

/** Copies a value with long strings cut, so one audit line stays small. */
export function shortenForAudit(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') {
    return value.length <= MAXIMUM_STRING_LENGTH
      ? value
      : `${value.slice(0, MAXIMUM_STRING_LENGTH)}… (${value.length} characters)`;
  }
  if (Array.isArray(value)) {
    return depth > 6 ? '[…]' : value.map((item) => shortenForAudit(item, depth + 1));
  }
  if (value !== null && typeof value === 'object') {
    if (depth > 6) return '{…}';
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, shortenForAudit(item, depth + 1)]),
    );
  }
  return value;
}

/** `{root}/teams/{team}/.muster/permission-audit.jsonl` */
export function auditLogPath(root: string, team: string): string {
  return createRootLayout(root).sidecarPath(team, AUDIT_LOG_FILE_NAME);
}

/**
 * The audit log of a team: JSON lines appended to the sidecar file. Each entry is written
 * with one `O_APPEND` write, so entries from several processes never interleave; the folder
 * is created on the first write. A write that fails throws `IO_ERROR`: nothing is dropped
 * silently.
 */
export function createAuditLog(options: {
  root: string;
  team: string;
  now?: () => Date;
}): AuditSink & { path: string } {
  const file = auditLogPath(options.root, options.team);
  const now = options.now ?? (() => new Date());
  return {
    path: file,
    async append(entry) {
      const { timestamp, ...rest } = entry;
      const line: AuditEntry = {
        timestamp: timestamp ?? now().toISOString(),
        team: options.team,
        ...rest,
      };
      if (line.data !== undefined)
        line.data = shortenForAudit(line.data) as Record<string, unknown>;
      try {
        await mkdir(path.dirname(file), { recursive: true });
        await appendFile(file, `${JSON.stringify(line)}\n`, { flag: 'a' });
      } catch (error) {
        throw new PermissionsError({
          code: 'IO_ERROR',
          message: `Could not append to the permission audit log ${file}: ${(error as Error).message}. Check that the team folder exists and is writable.`,
          cause: error,
          details: { file },
        });
      }
    },
  };
}

/** An audit sink that keeps entries in memory (for agents without a team folder, and tests). */
export function createMemoryAuditLog(team: string): AuditSink & { entries: AuditEntry[] } {
  const entries: AuditEntry[] = [];
  return {
    entries,
    async append(entry) {
      const { timestamp, ...rest } = entry;
      entries.push({ timestamp: timestamp ?? new Date().toISOString(), team, ...rest });
    },
  };
}

/** What {@link readAuditLog} found. */
export interface AuditLogContents {
  entries: AuditEntry[];
  /** Lines that are not valid entries (e.g. cut short by a crash), with their line numbers. */
  problems: Array<{ line: number; text: string; reason: string }>;
}

/** Reads a team's audit log; a missing log is empty. Unreadable lines are reported, not dropped. */
export async function readAuditLog(root: string, team: string): Promise<AuditLogContents> {
  const file = auditLogPath(root, team);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { entries: [], problems: [] };
    throw new PermissionsError({
      code: 'IO_ERROR',
      message: `Could not read the permission audit log ${file}: ${(error as Error).message}.`,
      cause: error,
      details: { file },
    });
  }
  const contents: AuditLogContents = { entries: [], problems: [] };
  text.split('\n').forEach((lineText, index) => {
    if (lineText.trim() === '') return;
    try {
      const value = JSON.parse(lineText) as Partial<AuditEntry>;
      if (typeof value.kind !== 'string' || typeof value.timestamp !== 'string') {
        contents.problems.push({
          line: index + 1,
          text: lineText,
          reason: 'missing kind or timestamp',
        });
        return;
      }
      contents.entries.push(value as AuditEntry);
    } catch (error) {
      contents.problems.push({ line: index + 1, text: lineText, reason: (error as Error).message });
    }
  });
  return contents;
}
