import { readdirSync, watch, type FSWatcher, type Stats } from 'node:fs';
import path from 'node:path';
import { createRootLayout, MusterError } from '@muster/protocol';
import type { FollowNotice } from './follow-inbox-notices.js';
import type { InboxSnapshot } from './follow-inbox-recorder.js';
import { systemErrorCode, toMailboxError } from './mailbox-error.js';
import { RootGuard } from './safe-files.js';

// The latency-critical half of the follower: it watches a team's `inboxes/` folder and reads
// an inbox the moment an event names it, and does nothing slow: no schema checks, no
// history I/O, no locks. What it reads goes to the recorder (another thread, normally).

/** Options of {@link startInboxReader}. */
export interface InboxReaderOptions {
  root: string;
  team: string;
  /** Interval of the polling fallback. */
  pollIntervalMs: number;
  onSnapshot: (snapshot: InboxSnapshot) => void;
  onNotice: (notice: FollowNotice) => void;
  /** Called once when reading cannot go on (a symbolic link below the root); it stopped. */
  onFatal: (error: MusterError) => void;
  /** The watch function (tests pass one that fails, to see the fallback). */
  watchFolder?: typeof watch;
}

/** A running reader. */
export interface InboxReader {
  /** How it follows right now. */
  readonly mode: 'watch' | 'poll';
  /** Stops watching and reads every inbox one last time; returns its counts. */
  stop(): {
    mode: 'watch' | 'poll';
    fallbackReason?: string;
    inboxReads: number;
    unparsableReads: number;
  };
}

const parseRetryDelaysMs = [5, 20, 100];
const presenceCheckMs = 100;

/** Starts reading `teams/<team>/inboxes/*.json` on every change (see {@link InboxReader}). */
export function startInboxReader(options: InboxReaderOptions): InboxReader {
  const inboxesDirectory = createRootLayout(options.root).inboxesDirectory(options.team);
  const guard = new RootGuard(options.root);
  const watchFolder = options.watchFolder ?? watch;
  const parseAttempts = new Map<string, number>();
  const failingReads = new Set<string>();
  const counts = {
    mode: 'watch' as 'watch' | 'poll',
    fallbackReason: undefined as string | undefined,
    inboxReads: 0,
    unparsableReads: 0,
  };
  let stopped = false;
  let failed = false;
  let watcher: FSWatcher | undefined;
  let watchedFolder: Stats | undefined;
  let ancestorWatcher: FSWatcher | undefined;
  let waiting = false;
  let pollTimer: NodeJS.Timeout | undefined;

  const notice = (kind: FollowNotice['kind'], message: string, file: string) => {
    options.onNotice({ kind, message, file });
  };

  const fail = (error: unknown, operation: string, file: string) => {
    if (failed) return;
    failed = true;
    closeWatchers();
    clearInterval(presenceTimer);
    clearInterval(pollTimer);
    options.onFatal(toMailboxError(error, operation, file));
  };

  const readInbox = (fileName: string): void => {
    if (failed) return;
    const file = path.join(inboxesDirectory, fileName);
    let read;
    try {
      read = guard.readText(file);
    } catch (error) {
      if (MusterError.isInstance(error)) return fail(error, 'read the inbox', file);
      // Said once per inbox until a read succeeds again (every change would repeat it).
      if (systemErrorCode(error) !== 'EISDIR' && !failingReads.has(fileName)) {
        failingReads.add(fileName);
        notice(
          'unreadable-inbox',
          `Could not read ${file} (${systemErrorCode(error) ?? String(error)}); its entries ` +
            'are not recorded until it can be read. Check its permissions.',
          file,
        );
      }
      return;
    }
    if (read === undefined) return;
    failingReads.delete(fileName);
    const seenAt = new Date().toISOString();
    counts.inboxReads += 1;
    let isArray: boolean;
    try {
      isArray = Array.isArray(JSON.parse(read.text));
    } catch {
      isArray = false;
    }
    if (!isArray) {
      // A writer that writes in place (Claude Code 2.1.45) can be caught half way: re-read.
      counts.unparsableReads += 1;
      const attempt = parseAttempts.get(fileName) ?? 0;
      const delay = parseRetryDelaysMs[attempt];
      if (delay === undefined) {
        parseAttempts.delete(fileName);
        notice(
          'unreadable-inbox',
          `${file} is not a JSON array (read ${attempt + 1} times); it is skipped until it ` +
            'changes again. Entries written to it later are still recorded.',
          file,
        );
        return;
      }
      parseAttempts.set(fileName, attempt + 1);
      setTimeout(() => {
        if (!stopped) readInbox(fileName);
      }, delay).unref();
      return;
    }
    parseAttempts.delete(fileName);
    options.onSnapshot({ fileName, file, text: read.text, seenAt });
  };

  const scanAll = (): void => {
    let names: string[];
    try {
      if (guard.check(inboxesDirectory)?.isDirectory() !== true) return;
      names = readdirSync(inboxesDirectory);
    } catch (error) {
      if (MusterError.isInstance(error)) fail(error, 'list the inboxes', inboxesDirectory);
      return;
    }
    for (const name of names) if (name.endsWith('.json')) readInbox(name);
  };

  // Events that arrive together (after the thread was held up, several per rename) lead to
  // one read per inbox: every read in that batch would see the same, current, file.
  const scheduled = new Set<string>();
  const onEvent = (_event: string, fileName: string | Buffer | null) => {
    if (stopped) return;
    const name = fileName === null ? '' : String(fileName);
    if (name !== '' && !name.endsWith('.json')) return;
    if (scheduled.has(name)) return;
    scheduled.add(name);
    setImmediate(() => {
      scheduled.delete(name);
      if (stopped) return;
      if (name === '') scanAll();
      else readInbox(name);
    });
  };

  function closeWatchers() {
    watcher?.close();
    watcher = undefined;
    watchedFolder = undefined;
    ancestorWatcher?.close();
    ancestorWatcher = undefined;
  }

  const startPolling = (reason: string) => {
    closeWatchers();
    counts.mode = 'poll';
    counts.fallbackReason = reason;
    notice(
      'polling',
      `Could not watch ${inboxesDirectory} (${reason}); reading it every ` +
        `${options.pollIntervalMs} ms instead. Entries removed faster than that can be missed. ` +
        'Raise the inotify limits (fs.inotify.max_user_watches, max_user_instances) to watch again.',
      inboxesDirectory,
    );
    pollTimer = setInterval(scanAll, options.pollIntervalMs);
    scanAll();
  };

  const waitForFolder = () => {
    if (!waiting) {
      waiting = true;
      notice(
        'waiting-for-folder',
        `${inboxesDirectory} does not exist yet; following it as soon as it appears.`,
        inboxesDirectory,
      );
    }
    if (ancestorWatcher !== undefined) return;
    // Watch the nearest folder that exists, so the inboxes folder is noticed at once.
    for (let folder = path.dirname(inboxesDirectory); ; folder = path.dirname(folder)) {
      const isRoot = path.resolve(folder) === guard.root;
      try {
        if (isRoot || guard.check(folder)?.isDirectory() === true) {
          ancestorWatcher = watchFolder(folder, { persistent: true }, () => attach());
          ancestorWatcher.on('error', () => {
            ancestorWatcher?.close();
            ancestorWatcher = undefined;
          });
          return;
        }
      } catch (error) {
        if (MusterError.isInstance(error)) fail(error, 'watch', folder);
        return; // Otherwise the presence check retries.
      }
      if (isRoot) return;
    }
  };

  function attach(): void {
    if (stopped || failed || watcher !== undefined || counts.mode === 'poll') return;
    let stats: Stats | undefined;
    try {
      stats = guard.check(inboxesDirectory);
    } catch (error) {
      return fail(error, 'watch the inboxes folder', inboxesDirectory);
    }
    if (stats?.isDirectory() !== true) return waitForFolder();
    try {
      watcher = watchFolder(inboxesDirectory, { persistent: true }, onEvent);
    } catch (error) {
      watcher = undefined;
      const code = systemErrorCode(error);
      if (code === 'ENOENT' || code === 'ENOTDIR') return waitForFolder();
      return startPolling(code ?? String(error));
    }
    watchedFolder = stats;
    watcher.on('error', () => {
      // The folder went away or the watch broke: the presence check re-attaches.
      watcher?.close();
      watcher = undefined;
      watchedFolder = undefined;
    });
    ancestorWatcher?.close();
    ancestorWatcher = undefined;
    waiting = false;
    notice('watching', `Following ${inboxesDirectory} by file-system events.`, inboxesDirectory);
    scanAll();
  }

  // Notices the inboxes folder disappearing or being replaced (a team ended, a new one of the
  // same name began), and the folder appearing when no ancestor watch could be set.
  const presenceTimer = setInterval(() => {
    if (stopped || failed || counts.mode === 'poll') return;
    if (watcher !== undefined && watchedFolder !== undefined) {
      let current: Stats | undefined;
      try {
        current = guard.check(inboxesDirectory);
      } catch {
        current = undefined;
      }
      if (current?.ino === watchedFolder.ino && current.dev === watchedFolder.dev) return;
      closeWatchers();
      notice('folder-gone', `${inboxesDirectory} was removed or replaced.`, inboxesDirectory);
    }
    attach();
  }, presenceCheckMs);

  attach();

  return {
    get mode() {
      return counts.mode;
    },
    stop() {
      if (!stopped) {
        stopped = true;
        clearInterval(presenceTimer);
        clearInterval(pollTimer);
        closeWatchers();
        if (!failed) scanAll();
      }
      const { fallbackReason, ...rest } = counts;
      return fallbackReason === undefined ? rest : { ...rest, fallbackReason };
    },
  };
}
