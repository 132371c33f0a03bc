// What an agent has read, per file: Write and Edit refuse to change a file the agent has not
// read, or that changed on disk since it did (another agent, a person, a formatter), so a model
// never overwrites work it has not seen.
import { createHash } from 'node:crypto';
import type { ToolContext } from '@muster/query';
import { ToolError } from '@muster/query';

/** The key of the read-state map in the agent's `ToolStateStore`. */
const FILE_READ_STATE_KEY = Symbol.for('@muster/tools/file-read-state');

/** What the agent saw of one file when it last read (or wrote) it. */
export interface FileReadRecord {
  /** The file's modification time then (milliseconds). */
  mtimeMs: number;
  /** The file's size then (bytes). */
  size: number;
  /** SHA-256 (hex) of the whole content, when the agent saw all of it. */
  hash?: string;
  /** True when the agent saw every line (a whole Read, or its own Write/Edit). */
  whole: boolean;
}

/** The per-agent map of read records, keyed by real path. */
export interface FileReadState {
  /** The record of `realPath`, if this agent read or wrote it. */
  get(realPath: string): FileReadRecord | undefined;
  /**
   * Records a read or write. A partial read of a file whose whole record is still current
   * (same mtime and size) keeps the whole record.
   */
  record(realPath: string, record: FileReadRecord): void;
  /** Drops the record of `realPath`. */
  forget(realPath: string): void;
}

/** The read state of the agent `context` belongs to (one per agent, kept in `context.state`). */
export function fileReadState(context: Pick<ToolContext, 'state'>): FileReadState {
  const records = context.state.get(FILE_READ_STATE_KEY, () => new Map<string, FileReadRecord>());
  return {
    get: (realPath) => records.get(realPath),
    record(realPath, record) {
      const previous = records.get(realPath);
      const keepPrevious =
        previous !== undefined &&
        previous.whole &&
        !record.whole &&
        previous.mtimeMs === record.mtimeMs &&
        previous.size === record.size;
      if (!keepPrevious) records.set(realPath, { ...record });
    },
    forget: (realPath) => {
      records.delete(realPath);
    },
  };
}

/** SHA-256 (hex) of `bytes`. */
export function hashContent(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** What `assertReadAndUnchanged` compares the record against: the file as it is now. */
export interface CurrentFile {
  /** Modification time now (milliseconds). */
  mtimeMs: number;
  /** Size now (bytes). */
  size: number;
  /** SHA-256 of the content now, when the caller has read it. */
  hash?: string;
}

/**
 * Refuses (with a `ToolError` the model can act on) when the agent has not read `realPath`,
 * has read only part of it while `requireWhole` is set, or the file changed since. A file whose
 * mtime changed but whose content hash is the same as the one read counts as unchanged; a file
 * whose mtime and size are the same but whose hash differs counts as changed.
 *
 * Codes: `FILE_NOT_READ`, `FILE_CHANGED_SINCE_READ`.
 */
export function assertReadAndUnchanged(
  state: FileReadState,
  realPath: string,
  current: CurrentFile,
  options: { requireWhole: boolean; toolName: string },
): FileReadRecord {
  const record = state.get(realPath);
  if (record === undefined) {
    throw new ToolError(
      `${options.toolName} refused: ${realPath} already exists and this agent has not read it. Read it first (the whole file), then retry the ${options.toolName}.`,
      'FILE_NOT_READ',
      { filePath: realPath },
    );
  }
  if (options.requireWhole && !record.whole) {
    throw new ToolError(
      `${options.toolName} refused: this agent has read only part of ${realPath}, and ${options.toolName} replaces all of it. Read the whole file first (no offset or limit), or use Edit to change one part.`,
      'FILE_NOT_READ',
      { filePath: realPath },
    );
  }
  const sameStat = record.mtimeMs === current.mtimeMs && record.size === current.size;
  const hashKnown = record.hash !== undefined && current.hash !== undefined;
  const unchanged = hashKnown ? record.hash === current.hash : sameStat;
  if (!unchanged) {
    throw new ToolError(
      `${options.toolName} refused: ${realPath} changed on disk since this agent read it (it was ${record.size} bytes, modified ${new Date(record.mtimeMs).toISOString()}; now ${current.size} bytes, modified ${new Date(current.mtimeMs).toISOString()}). Read it again and redo the change on the current content.`,
      'FILE_CHANGED_SINCE_READ',
      { filePath: realPath, read: record, current },
    );
  }
  return record;
}
