import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import { assertSafePathSegment } from '@muster/protocol';
import type { ErrorDescription, WorkerInput, WorkerMessage } from './follow-inbox-messages.js';
import type { FollowNotice, FollowSummary } from './follow-inbox-notices.js';
import { startInboxReader, type InboxReader } from './follow-inbox-reader.js';
import { createSnapshotRecorder } from './follow-inbox-recorder.js';
import type { RecordedInboxEntry } from './inbox-history-files.js';
import { MailboxError, type MailboxErrorCode } from './mailbox-error.js';

/** Options of {@link followInboxes}. */
export interface FollowInboxesOptions {
  /** The muster root (`~/.claude` to follow Claude Code's own teams). */
  root: string;
  /** The team whose `inboxes/` folder is followed; it need not exist yet. */
  team: string;
  /** Stops following; the follower then reads every inbox once more and finishes recording. */
  signal: AbortSignal;
  /** Called once for each entry added to the team's history (by this follower or another). */
  onEntry?: (recorded: RecordedInboxEntry) => void;
  /**
   * Called for what the caller should know (see {@link FollowNotice}). Without it, `polling`,
   * `unreadable-inbox`, `invalid-entries` and `history-problem` notices become process warnings.
   */
  onNotice?: (notice: FollowNotice) => void;
  /**
   * `'worker'` (default): watch, read and record in a worker thread, so a busy caller cannot
   * delay the reads. `'main'`: in the caller's thread (needs no built worker file).
   */
  thread?: 'worker' | 'main';
  /** Interval of the polling fallback, used only when watching fails. Default 50 ms. */
  pollIntervalMs?: number;
}

/** A running follower (see {@link followInboxes}). */
export interface InboxFollower {
  /** Where it runs. */
  readonly thread: 'worker' | 'main';
  /** `watch` (file-system events) or `poll` (after watching failed; a notice said why). */
  readonly mode: 'watch' | 'poll';
  /**
   * Resolves with a summary once the signal aborted and everything seen was recorded.
   * Rejects with a `MailboxError` when the history cannot be written (or `onEntry` threw):
   * following stopped then.
   */
  readonly stopped: Promise<FollowSummary>;
}

/** Default interval of the polling fallback: what Claude Code's own guidance calls enough. */
export const defaultFollowPollIntervalMs = 50;

const quietNoticeKinds = new Set<FollowNotice['kind']>([
  'watching',
  'waiting-for-folder',
  'folder-gone',
]);

/**
 * Follows a team's `inboxes/` folder and records every entry seen in any inbox to
 * `<root>/.muster/history/<team>/<agent>.jsonl`, which outlives the team folder. Claude
 * Code 2.1.330 deletes delivered entries within 0.1–0.5 s, so reading an inbox later shows
 * nothing: the follower watches the folder (inotify through `fs.watch`) and reads an inbox
 * the moment a rename lands on it. Watching that fails falls back to polling every
 * `pollIntervalMs`, with a `polling` notice. Each entry is written once (identity: `msg_id`,
 * else `from|timestamp|text`; two equal entries in one inbox are two), also across
 * restarts and with several followers of one team. Resolves once following has started.
 */
export async function followInboxes(options: FollowInboxesOptions): Promise<InboxFollower> {
  checkOptions(options);
  const thread = options.thread ?? 'worker';
  const pollIntervalMs = options.pollIntervalMs ?? defaultFollowPollIntervalMs;
  const onNotice = options.onNotice ?? warnAbout;
  let settle!: { resolve: (summary: FollowSummary) => void; reject: (error: unknown) => void };
  const stopped = new Promise<FollowSummary>((resolve, reject) => {
    settle = { resolve, reject };
  });
  let failure: unknown;
  let stop: () => void = () => {};
  const deliver = (entries: readonly RecordedInboxEntry[]) => {
    if (failure !== undefined) return;
    for (const recorded of entries) {
      try {
        options.onEntry?.(recorded);
      } catch (error) {
        failure = error;
        stop();
        return;
      }
    }
  };

  if (thread === 'main') {
    const recorder = createSnapshotRecorder({
      root: options.root,
      team: options.team,
      onRecorded: deliver,
      onNotice,
      onFatal: (error) => {
        failure ??= error;
        stop();
      },
    });
    const reader: InboxReader = startInboxReader({
      root: options.root,
      team: options.team,
      pollIntervalMs,
      onSnapshot: (snapshot) => recorder.add(snapshot),
      onNotice,
      onFatal: (error) => {
        failure ??= error;
        stop();
      },
    });
    let stopping = false;
    stop = () => {
      options.signal.removeEventListener('abort', stop);
      if (stopping) return;
      stopping = true;
      const counts = reader.stop();
      void recorder.flush().then(() => {
        if (failure === undefined) settle.resolve({ ...counts, recorded: recorder.recorded });
        else settle.reject(failure);
      });
    };
    if (options.signal.aborted || failure !== undefined) stop();
    else options.signal.addEventListener('abort', stop, { once: true });
    return {
      thread,
      get mode() {
        return reader.mode;
      },
      stopped,
    };
  }

  const file = workerFile();
  const channel = new MessageChannel();
  const startWorker = (role: 'reader' | 'recorder', port: MessagePort) =>
    new Worker(file, {
      workerData: {
        role,
        root: options.root,
        team: options.team,
        pollIntervalMs,
        port,
      } satisfies WorkerInput,
      transferList: [port],
    });
  const recorderWorker = startWorker('recorder', channel.port2);
  const readerWorker = startWorker('reader', channel.port1);
  let mode: 'watch' | 'poll' = 'watch';
  let stopping = false;
  let readerCounts: Omit<FollowSummary, 'recorded'> | undefined;
  let recordedCount: number | undefined;
  let finished = false;
  const finish = (outcome: { summary: FollowSummary } | { error: unknown }) => {
    if (finished) return;
    finished = true;
    options.signal.removeEventListener('abort', stop);
    if ('summary' in outcome && failure === undefined) settle.resolve(outcome.summary);
    else settle.reject(failure ?? ('error' in outcome ? outcome.error : undefined));
    void readerWorker.terminate();
    void recorderWorker.terminate();
  };
  stop = () => {
    options.signal.removeEventListener('abort', stop);
    if (stopping) return;
    stopping = true;
    readerWorker.postMessage({ type: 'stop' });
  };
  const fromError = (error: ErrorDescription) =>
    new MailboxError({
      code: error.code as MailboxErrorCode,
      message: error.message,
      details: error.details ?? {},
    });
  const startedCount = { value: 0 };
  const started = new Promise<void>((resolve, reject) => {
    const onMessage = (message: WorkerMessage) => {
      switch (message.type) {
        case 'started':
          if (message.mode === 'poll') mode = 'poll';
          startedCount.value += 1;
          if (startedCount.value === 2) resolve();
          break;
        case 'recorded':
          deliver(message.entries);
          break;
        case 'notice':
          if (message.notice.kind === 'polling') mode = 'poll';
          onNotice(message.notice);
          break;
        case 'fatal':
          failure ??= fromError(message.error);
          reject(failure);
          if (readerCounts === undefined) stop();
          finish({ error: failure });
          break;
        case 'reader-stopped':
          readerCounts = message.counts;
          if (recordedCount !== undefined)
            finish({ summary: { ...readerCounts, recorded: recordedCount } });
          break;
        case 'recorder-flushed':
          recordedCount = message.recorded;
          if (readerCounts !== undefined)
            finish({ summary: { ...readerCounts, recorded: recordedCount } });
          break;
      }
    };
    const onFailure = (error: unknown) => {
      failure ??= error;
      reject(error);
      finish({ error });
    };
    const onExit = () => {
      if (finished) return;
      onFailure(
        new MailboxError({
          code: 'IO_ERROR',
          message: `The inbox follower of team ${options.team} stopped unexpectedly. Start it again.`,
          details: { team: options.team },
        }),
      );
    };
    for (const worker of [readerWorker, recorderWorker]) {
      worker.on('message', onMessage);
      worker.on('error', onFailure);
    }
    recorderWorker.on('exit', onExit);
    readerWorker.on('exit', () => {
      if (readerCounts === undefined) onExit();
    });
  });
  try {
    await started;
  } catch (error) {
    stopped.catch(() => {
      // The caller gets this error from followInboxes itself, not from `stopped`.
    });
    throw error;
  }
  if (options.signal.aborted) stop();
  else options.signal.addEventListener('abort', stop, { once: true });
  return {
    thread,
    get mode() {
      return mode;
    },
    stopped,
  };
}

function checkOptions(options: FollowInboxesOptions): void {
  const problem =
    typeof options?.root !== 'string' || options.root.trim() === ''
      ? 'root must be the muster root folder (a non-empty string)'
      : typeof options.team !== 'string'
        ? 'team must be a team name'
        : !(options.signal instanceof AbortSignal)
          ? 'signal must be an AbortSignal (abort it to stop following)'
          : options.onEntry !== undefined && typeof options.onEntry !== 'function'
            ? 'onEntry must be a function'
            : options.thread !== undefined &&
                options.thread !== 'worker' &&
                options.thread !== 'main'
              ? 'thread must be "worker" or "main"'
              : options.pollIntervalMs !== undefined &&
                  !(Number.isFinite(options.pollIntervalMs) && options.pollIntervalMs >= 1)
                ? 'pollIntervalMs must be a number of milliseconds, at least 1'
                : undefined;
  if (problem !== undefined) {
    throw new MailboxError({
      code: 'INVALID_NAME',
      message: `followInboxes: ${problem}.`,
      details: { team: options?.team },
    });
  }
  try {
    assertSafePathSegment(options.team, 'team name');
  } catch (error) {
    throw new MailboxError({
      code: 'INVALID_NAME',
      message: `followInboxes: ${(error as Error).message}`,
      cause: error,
      details: { team: options.team },
    });
  }
}

function workerFile(): URL {
  const url = new URL('./follow-inbox-worker.js', import.meta.url);
  if (!existsSync(fileURLToPath(url))) {
    throw new MailboxError({
      code: 'IO_ERROR',
      message:
        `The inbox follower's worker script ${fileURLToPath(url)} is missing: @muster/mailbox ` +
        'runs from an incomplete build. Build it (pnpm --filter @muster/mailbox build), or ' +
        "pass thread: 'main' to follow in the calling thread.",
      details: { file: fileURLToPath(url) },
    });
  }
  return url;
}

function warnAbout(notice: FollowNotice): void {
  if (quietNoticeKinds.has(notice.kind)) return;
  process.emitWarning(notice.message, { code: `MUSTER_FOLLOW_${notice.kind.toUpperCase()}` });
}
