import { closeSync, constants, fstatSync, readSync, writeSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { acquireFileLock } from '@muster/file-lock';
import {
  agentNameToFileName,
  assertSafePathSegment,
  joinUnderRoot,
  LAYOUT_NAMES,
  type InboxMessage,
} from '@muster/protocol';
import {
  countEntries,
  formatHistoryLine,
  newEntriesOf,
  parseHistoryText,
  type ElementCache,
  type IdentityCounts,
  type InboxHistoryLine,
  type SnapshotNews,
} from './inbox-history-format.js';
import { systemErrorCode, toMailboxError } from './mailbox-error.js';
import { RootGuard } from './safe-files.js';

/** The folder below the root that holds every team's inbox histories. */
export const HISTORY_FOLDER = 'history';

/** Where one team's histories live: `<root>/.muster/history/<team>` (outside the team folder). */
export function historyDirectory(root: string, team: string): string {
  assertSafePathSegment(team, 'team name');
  return joinUnderRoot(root, LAYOUT_NAMES.sidecar, HISTORY_FOLDER, team);
}

/** `<root>/.muster/history/<team>/<agent>.jsonl` (`@` in the name becomes `-`, as for inboxes). */
export function historyFilePath(root: string, team: string, agent: string): string {
  return joinUnderRoot(historyDirectory(root, team), `${agentNameToFileName(agent)}.jsonl`);
}

/** An entry a follower wrote to the history. */
export interface RecordedInboxEntry {
  /** Whose inbox it was in: the inbox file's name without `.json`. */
  agent: string;
  /** The entry as it was in the inbox. */
  entry: InboxMessage;
  /** When it was first seen (ISO-8601), as stored in the history line. */
  firstSeenAt: string;
  /** When its history line was written, epoch milliseconds with fractions (for latency). */
  recordedAtMs: number;
}

/** What one {@link HistoryRecorder.record} call found. */
export interface RecordResult {
  /** Entries this recorder appended, in inbox order. */
  written: RecordedInboxEntry[];
  /** Lines another follower appended since this recorder last read the file. */
  byOthers: RecordedInboxEntry[];
}

/** Something a history file held that is not a history line; it was skipped. */
export type HistoryProblemReporter = (file: string, problem: string) => void;

/** How long a recorder waits for the history file's lock (another follower appending). */
const historyLockDeadlineMs = 30_000;

/**
 * Appends to one inbox's history file. Keeps the identity counts of every line in the
 * file; before each append it takes the file's lock and reads the lines other followers
 * appended meanwhile, so two followers of one team never write an entry twice, and a
 * restarted follower never repeats what an earlier one wrote.
 */
export class HistoryRecorder {
  readonly agent: string;
  readonly file: string;
  private readonly guard: RootGuard;
  private readonly root: string;
  private readonly counts: IdentityCounts = new Map();
  private readonly cache: ElementCache = new Map();
  private offset = 0;
  private endsWithNewline = true;
  private lineNumber = 1;
  private readonly report: HistoryProblemReporter;

  /**
   * `announceExisting`: false reads the lines already in the file now (a follower starting:
   * they are not news); true leaves them to the first {@link record}, which returns them as
   * written by others (the file appeared after the follower started).
   */
  constructor(options: {
    root: string;
    team: string;
    agent: string;
    report: HistoryProblemReporter;
    announceExisting: boolean;
  }) {
    this.root = options.root;
    this.agent = options.agent;
    this.file = historyFilePath(options.root, options.team, options.agent);
    this.guard = new RootGuard(options.root);
    this.report = options.report;
    if (!options.announceExisting) this.catchUp();
  }

  /**
   * The entries of a snapshot that are not in the history as far as this recorder knows,
   * and the elements that are not entries (no I/O, no lock).
   */
  newEntries(elements: readonly unknown[]): SnapshotNews {
    return newEntriesOf(elements, this.counts, this.cache);
  }

  /**
   * Writes the entries of the given inbox snapshots (in the order they were read) that the
   * history does not hold yet, each snapshot's with the time it was read, under the history
   * file's lock. Returns what it wrote, and what other followers wrote since this recorder
   * last looked (so a caller hears of every entry once).
   */
  async record(
    snapshots: readonly { elements: readonly unknown[]; seenAt: string }[],
  ): Promise<RecordResult> {
    const directory = historyDirectoryOf(this.file);
    try {
      this.guard.ensureDirectory(directory);
    } catch (error) {
      throw toMailboxError(error, 'create the history folder', this.file);
    }
    let lock;
    try {
      lock = await acquireFileLock(this.file, {
        root: this.root,
        deadlineMs: historyLockDeadlineMs,
      });
    } catch (error) {
      throw toMailboxError(error, 'lock the history file', this.file);
    }
    try {
      const appendedByOthers = this.catchUp();
      const written: { entry: InboxMessage; seenAt: string }[] = [];
      for (const { elements, seenAt } of snapshots) {
        const { fresh } = newEntriesOf(elements, this.counts, this.cache);
        countEntries(this.counts, fresh);
        for (const entry of fresh) written.push({ entry, seenAt });
      }
      if (written.length > 0) {
        const text =
          (this.endsWithNewline ? '' : '\n') +
          written.map((line) => formatHistoryLine(line)).join('');
        try {
          this.append(text);
        } catch (error) {
          // Not written: forget them again, so a later snapshot can still record them.
          this.counts.clear();
          this.offset = 0;
          this.lineNumber = 1;
          throw error;
        }
        this.lineNumber += written.length;
      }
      const recordedAtMs = performance.timeOrigin + performance.now();
      return {
        byOthers: appendedByOthers.map((line) => ({
          agent: this.agent,
          entry: line.entry,
          firstSeenAt: line.seenAt,
          recordedAtMs,
        })),
        written: written.map(({ entry, seenAt }) => ({
          agent: this.agent,
          entry,
          firstSeenAt: seenAt,
          recordedAtMs,
        })),
      };
    } finally {
      await lock.release().catch((error: unknown) => {
        this.report(this.file, `its lock could not be released cleanly: ${String(error)}`);
      });
    }
  }

  /** Reads what was appended to the file after `offset`; counts it and returns its lines. */
  private catchUp(): InboxHistoryLine[] {
    let read;
    try {
      read = readFrom(this.guard, this.file, this.offset);
    } catch (error) {
      throw toMailboxError(error, 'read the history file', this.file);
    }
    if (read === undefined) {
      this.endsWithNewline = true;
      return [];
    }
    if (read.size < this.offset) {
      // The file was cut shorter by someone: start over from its beginning.
      this.counts.clear();
      this.offset = 0;
      this.lineNumber = 1;
      return this.catchUp();
    }
    this.endsWithNewline = read.endsWithNewline;
    const completeLength = read.bytes.lastIndexOf(0x0a) + 1;
    const complete = read.bytes.subarray(0, completeLength).toString('utf8');
    const parsed = parseHistoryText(complete, this.lineNumber);
    for (const problem of parsed.problems) this.report(this.file, problem);
    countEntries(
      this.counts,
      parsed.lines.map((line) => line.entry),
    );
    this.offset += completeLength;
    this.lineNumber += complete.split('\n').length - 1;
    if (completeLength < read.bytes.length) {
      // A partial line left by a write that was cut short: skip it for good (the next
      // append starts on a new line).
      this.report(
        this.file,
        `line ${this.lineNumber}: cut short (a write was interrupted); skipped`,
      );
      this.offset += read.bytes.length - completeLength;
      this.lineNumber += 1;
    }
    return parsed.lines;
  }

  private append(text: string): void {
    let descriptor: number;
    try {
      descriptor = this.guard.open(
        this.file,
        constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT,
        0o644,
      );
    } catch (error) {
      throw toMailboxError(error, 'open the history file', this.file);
    }
    try {
      const buffer = Buffer.from(text, 'utf8');
      let written = 0;
      while (written < buffer.length) {
        written += writeSync(descriptor, buffer, written, buffer.length - written, null);
      }
      this.offset += buffer.length;
      this.endsWithNewline = true;
    } catch (error) {
      throw toMailboxError(error, 'append to the history file', this.file);
    } finally {
      closeSync(descriptor);
    }
  }
}

function historyDirectoryOf(file: string): string {
  return file.slice(0, file.lastIndexOf('/'));
}

/** The bytes of `file` from `offset` on and its size; undefined when it is missing. */
function readFrom(guard: RootGuard, file: string, offset: number) {
  let descriptor: number;
  try {
    descriptor = guard.open(file, constants.O_RDONLY);
  } catch (error) {
    if (systemErrorCode(error) === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const size = fstatSync(descriptor).size;
    const from = Math.min(offset, size);
    const bytes = Buffer.alloc(size - from);
    let filled = 0;
    while (filled < bytes.length) {
      const count = readSync(descriptor, bytes, filled, bytes.length - filled, from + filled);
      if (count === 0) break;
      filled += count;
    }
    const last = Buffer.alloc(1);
    const endsWithNewline =
      size === 0 || (readSync(descriptor, last, 0, 1, size - 1) === 1 && last[0] === 0x0a);
    return { bytes: bytes.subarray(0, filled), size, endsWithNewline };
  } finally {
    closeSync(descriptor);
  }
}
