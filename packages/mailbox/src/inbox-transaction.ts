import { lstatSync, renameSync, type Stats } from 'node:fs';
import { quarantineFile, type HeldLock } from '@muster/file-lock';
import type { InboxMessage } from '@muster/protocol';
import {
  appendArchiveExactlyOnce,
  appendExactlyOnce,
  discardTemporaryFile,
  fileSize,
  recoverUnfinishedCommit,
  removeCommitRecord,
  writeCommitRecord,
  type CommitRecord,
} from './commit-record.js';
import { parseInboxText, serializeInbox } from './inbox-format.js';
import { checkInboxPaths, type InboxPaths } from './inbox-paths.js';
import { MailboxError, systemErrorCode } from './mailbox-error.js';
import {
  archiveMentions,
  messageIdLines,
  readMessageIdLog,
  trimMessageIdLog,
} from './message-id-log.js';
import { applyQueuedOperations, type DeliveredIdLookup } from './queued-operations.js';
import { syncDirectory } from './safe-files.js';
import { failedAfterRename, withdrawAfterFailure } from './delivery-failure.js';
import {
  claimSpoolFile,
  deleteClaimedFiles,
  listClaimed,
  listSpool,
  readSpoolFile,
  rejectClaimedFile,
  spoolNameTime,
  withdrawSpoolFile,
  type SpoolOperation,
} from './spool.js';
import {
  removeStrayTemporaryFiles,
  unlinkQuietly,
  writeTemporaryInbox,
} from './temporary-inbox.js';

// I/O here is synchronous on purpose (see spool.ts): the lock is held throughout, and a
// dozen thread-pool round trips would cost more than the work.

/**
 * Points inside a commit where a fault-injection test may pause or kill the process.
 * `checked`: the last check (lock still ours, inbox unchanged) passed; the rename is next.
 */
export type CommitStep = 'claimed' | 'temporary-written' | 'record-written' | 'checked' | 'renamed';

/** What a commit is doing when it reaches a step. */
export interface CommitStepInfo {
  /** Whose inbox. */
  agent: string;
  /** Queued spool files this commit claimed. */
  claimed: number;
  /** Whether it carries an operation directly (a send that found the lock free). */
  direct: boolean;
}

/** What the body of a transaction sees: the inbox after every queued operation. */
export interface TransactionState {
  messages: InboxMessage[];
  /** Whether the inbox file existed. */
  existed: boolean;
  /** How many entries the queue appended in this transaction. */
  incoming: number;
}

/** What the body wants: a new array (or none to keep it), entries to archive, a result. */
export interface TransactionChange<Result> {
  messages?: InboxMessage[];
  archived?: InboxMessage[];
  result: Result;
}

/** How a transaction runs. */
export interface TransactionOptions {
  /** Create the inbox when it is missing and nothing is queued (only sends do). */
  createIfMissing: boolean;
  /** The caller's own spool file: withdrawn if the inbox turns out to be corrupt. */
  ownSpoolName?: string;
  /** An operation applied directly, after the queued ones (a send that found the lock free). */
  directOperation?: SpoolOperation;
  /** Called at each step (fault-injection tests). */
  onStep?: (step: CommitStep, info: CommitStepInfo) => void | Promise<void>;
  /**
   * Whether a corrupt inbox is moved aside here. False for background work (draining other
   * senders' queue): the file is left for an operation that can report it to its caller.
   */
  mayQuarantine?: boolean;
}

/** Pause before re-reading an inbox that did not parse (Claude Code writes in place). */
const rereadDelayMs = 25;

/**
 * One read-modify-write of an inbox under its lock: finishes any unfinished commit,
 * re-reads the inbox, claims and applies every queued operation, applies `body`, and
 * replaces the inbox atomically — after checking that the lock is still ours and the inbox
 * unchanged. Returns `'lost'` when that check fails (nothing shared was changed; run it
 * again).
 */
export async function runInboxTransaction<Result>(
  lock: HeldLock,
  paths: InboxPaths,
  body: (state: TransactionState) => TransactionChange<Result>,
  options: TransactionOptions,
): Promise<{ result: Result } | 'lost'> {
  const progress = { renamed: false };
  try {
    return await runTransactionSteps(lock, paths, body, options, progress);
  } catch (error) {
    // Failed before the rename: the caller's own operation must never arrive later (a retry
    // would duplicate it), so it is taken back while the lock is still held.
    if (progress.renamed) throw failedAfterRename(error, paths);
    throw withdrawAfterFailure(paths, options, error);
  }
}

async function runTransactionSteps<Result>(
  lock: HeldLock,
  paths: InboxPaths,
  body: (state: TransactionState) => TransactionChange<Result>,
  options: TransactionOptions,
  progress: { renamed: boolean },
): Promise<{ result: Result } | 'lost'> {
  checkInboxPaths(paths);
  recoverUnfinishedCommit(paths);
  // A holder that lost the lock while paused after its last check still has its temp file,
  // ready to be renamed over the inbox. Deleting it now makes that rename fail (the paused
  // holder starts over) instead of overwriting what this transaction is about to commit.
  removeStrayTemporaryFiles(paths);
  const snapshot = await readInboxUnderLock(paths, options);
  const queued = claimQueuedOperations(paths);
  const info: CommitStepInfo = {
    agent: paths.agent,
    claimed: queued.names.length,
    direct: options.directOperation !== undefined,
  };
  if (queued.names.length > 0) await options.onStep?.('claimed', info);
  const current = snapshot?.messages ?? [];
  const operations = options.directOperation
    ? [...queued.operations, options.directOperation]
    : queued.operations;
  const applied = applyQueuedOperations(
    current,
    operations,
    () => isClaimedInbox(paths),
    deliveredIdLookup(paths),
  );
  const change = body({
    messages: applied.messages,
    existed: snapshot !== undefined,
    incoming: applied.appended,
  });
  const archived = [...applied.archived, ...(change.archived ?? [])];
  const next = change.messages ?? applied.messages;
  const mayCreate = options.createIfMissing || applied.appended > 0;
  const unchanged = next === current && archived.length === 0;
  if (unchanged || (snapshot === undefined && !mayCreate)) {
    // Nothing to write: the claimed operations (mark requests that matched nothing) are
    // done as they are.
    deleteClaimedFiles(paths, queued.names);
    return { result: change.result };
  }
  const temporary = writeTemporaryInbox(paths, serializeInbox(next));
  await options.onStep?.('temporary-written', info);
  if (!(await stillOurs(lock, paths, snapshot?.stats))) {
    unlinkQuietly(temporary.file);
    return 'lost';
  }
  // Logged even when the body then moved them on (a clear archives them): they were delivered.
  const appendedIds = applied.appendedIds;
  if (appendedIds.length > 0) trimMessageIdLog(paths);
  const record: CommitRecord | undefined =
    queued.names.length > 0 || archived.length > 0 || appendedIds.length > 0
      ? {
          version: 1,
          temporaryFile: temporary.file,
          ...temporary.identity,
          claimed: queued.names,
          ...(archived.length > 0
            ? {
                archive: {
                  sizeBefore: fileSize(paths, paths.archive),
                  lines: archiveLines(archived),
                },
              }
            : {}),
          ...(appendedIds.length > 0
            ? {
                messageIds: {
                  sizeBefore: fileSize(paths, paths.messageIdLog),
                  lines: messageIdLines(appendedIds),
                },
              }
            : {}),
        }
      : undefined;
  if (record !== undefined) {
    writeCommitRecord(paths, record);
    await options.onStep?.('record-written', info);
    if (!(await stillOurs(lock, paths, snapshot?.stats))) {
      // The record stays: whoever holds the lock now sees the rename did not happen, because
      // the temp file is in `discarded/` (never deleted while a record may name it).
      discardTemporaryFile(paths, temporary.file);
      return 'lost';
    }
  }
  await options.onStep?.('checked', info);
  try {
    renameSync(temporary.file, paths.inbox);
  } catch (error) {
    // The temp file is gone: a later lock holder deleted it (see removeStrayTemporaryFiles),
    // so this process lost the lock after its check. Nothing was changed; start over.
    if (systemErrorCode(error) === 'ENOENT') return 'lost';
    if (record === undefined) unlinkQuietly(temporary.file);
    else discardTemporaryFile(paths, temporary.file);
    throw error;
  }
  progress.renamed = true;
  // Durable before anyone is told: the new inbox's content was flushed before the rename,
  // and the rename itself is flushed here. One flush per commit, however many it carries.
  syncDirectory(paths.inboxesDirectory);
  await options.onStep?.('renamed', info);
  if (record !== undefined) {
    if (record.archive !== undefined) appendArchiveExactlyOnce(paths, record.archive);
    if (record.messageIds !== undefined) {
      appendExactlyOnce(paths, paths.messageIdLog, record.messageIds);
    }
    deleteClaimedFiles(paths, queued.names);
    // Flushed so that a power cut cannot bring committed queue files back (a duplicate).
    if (queued.names.length > 0) syncDirectory(paths.claimedDirectory);
    removeCommitRecord(paths);
  }
  return { result: change.result };
}

interface InboxRead {
  messages: InboxMessage[];
  stats: Stats;
}

/**
 * The inbox's text and stats from one open handle (never through a symbolic link);
 * undefined when it is missing.
 */
export function readInboxFile(paths: InboxPaths): { text: string; stats: Stats } | undefined {
  return paths.guard.readText(paths.inbox);
}

/** Whether a muster agent claimed the inbox (its marker exists; a link is not followed). */
export function isClaimedInbox(paths: InboxPaths): boolean {
  return lstatSync(paths.claimMarker, { throwIfNoEntry: false })?.isFile() ?? false;
}

/**
 * Reads and parses the inbox while holding its lock. A file that fails twice (25 ms apart)
 * is moved to `<inbox>.corrupt-<timestamp>` and reported as `CORRUPT_FILE`; the caller's own
 * queued (or direct) operation is withdrawn so that the failed send is really not delivered.
 */
async function readInboxUnderLock(
  paths: InboxPaths,
  options: TransactionOptions,
): Promise<InboxRead | undefined> {
  let problem = '';
  for (let attempt = 0; attempt < 2; attempt += 1) {
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, rereadDelayMs));
    const snapshot = readInboxFile(paths);
    if (snapshot === undefined) return undefined;
    try {
      return { messages: parseInboxText(snapshot.text, paths.inbox), stats: snapshot.stats };
    } catch (error) {
      problem = error instanceof Error ? error.message : String(error);
    }
  }
  if (options.mayQuarantine === false) {
    throw new MailboxError({
      code: 'CORRUPT_FILE',
      message: `The inbox ${paths.inbox} does not parse (${problem}); left in place for a caller to report.`,
      details: { inboxPath: paths.inbox, problem },
    });
  }
  const quarantinedTo = await quarantineFile(paths.inbox, problem, { root: paths.guard.root });
  const withdrawn =
    options.directOperation !== undefined ||
    (options.ownSpoolName !== undefined && withdrawSpoolFile(paths, options.ownSpoolName));
  throw new MailboxError({
    code: 'CORRUPT_FILE',
    message:
      `The inbox ${paths.inbox} does not parse (${problem}). It was moved, unchanged, to ` +
      `${quarantinedTo}: every message it held is still in that file. ` +
      (withdrawn ? 'This message was NOT delivered. ' : '') +
      'The next message to this agent starts a new inbox; recover the old messages from ' +
      'the quarantined copy (or repair it and move it back while no one is writing).',
    details: {
      inboxPath: paths.inbox,
      quarantinedTo,
      problem,
      withdrawn,
      ...(withdrawn ? { delivered: false } : {}),
    },
  });
}

/** A spool file younger than this that does not parse may still be being written. */
const stillWritingMs = 5_000;

/**
 * Takes every queued operation: leftovers in `claimed/` from a commit that did not finish,
 * and the spool files (each read, then moved to `claimed/`; one its sender withdrew first is
 * skipped). A file that does not parse is rejected — unless it is young, when its sender may
 * still be writing it and it is left for the next commit. Returned in send order.
 */
function claimQueuedOperations(paths: InboxPaths) {
  const taken: Array<{ name: string; operation: SpoolOperation }> = [];
  const reject = (name: string) => {
    paths.guard.ensureDirectory(paths.rejectedDirectory);
    rejectClaimedFile(paths, name);
  };
  for (const name of listClaimed(paths)) {
    const content = readSpoolFile(paths.claimedDirectory, name);
    if (content === undefined) continue;
    if ('problem' in content) reject(name);
    else taken.push(content);
  }
  const queued = listSpool(paths);
  if (queued.length > 0) paths.guard.ensureDirectory(paths.claimedDirectory);
  for (const name of queued) {
    const content = readSpoolFile(paths.spoolDirectory, name);
    if (content === undefined) continue;
    if ('problem' in content) {
      if (Date.now() - spoolNameTime(name) < stillWritingMs) continue;
      if (claimSpoolFile(paths, name)) reject(name);
      continue;
    }
    if (claimSpoolFile(paths, name)) taken.push(content);
  }
  taken.sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
  return {
    names: taken.map((entry) => entry.name),
    operations: taken.map((entry) => entry.operation),
  };
}

/** The lock is still ours and the inbox is still the version this transaction read. */
async function stillOurs(
  lock: HeldLock,
  paths: InboxPaths,
  before: Stats | undefined,
): Promise<boolean> {
  if (!(await lock.isHeld())) return false;
  const now = lstatSync(paths.inbox, { throwIfNoEntry: false });
  if (before === undefined || now === undefined) return before === now;
  return (
    before.dev === now.dev &&
    before.ino === now.ino &&
    before.size === now.size &&
    before.mtimeMs === now.mtimeMs
  );
}

function archiveLines(messages: readonly InboxMessage[]): string {
  return messages.map((message) => `${JSON.stringify(message)}\n`).join('');
}

/** Ids delivered before, read only when a send that names its own ids is committed. */
function deliveredIdLookup(paths: InboxPaths): DeliveredIdLookup {
  let logged: ReadonlySet<string> | undefined;
  let archiveText: string | undefined;
  return {
    loggedIds: () => (logged ??= readMessageIdLog(paths)),
    inArchive: (id) =>
      archiveMentions((archiveText ??= paths.guard.readText(paths.archive)?.text ?? ''), id),
  };
}
