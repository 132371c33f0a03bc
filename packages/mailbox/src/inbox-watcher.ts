import { watch, type FSWatcher } from 'node:fs';
import type { InboxPaths } from './inbox-paths.js';
import type { InboxChanges } from './mailbox-store.js';

/** Default interval of the polling fallback. */
export const defaultPollIntervalMs = 500;

/**
 * Watches one inbox: a file-system watch on the inboxes folder (a watch on the file itself
 * would stop at the first rename over it) plus a polling tick, so a missed event or a
 * folder that appears later costs at most one interval. The first iteration reports at
 * once (so the caller scans what is already there).
 */
export function watchInbox(
  paths: InboxPaths,
  options: { signal?: AbortSignal; pollIntervalMs?: number } = {},
): InboxChanges {
  const pollIntervalMs = options.pollIntervalMs ?? defaultPollIntervalMs;
  let pending = true;
  let closed = false;
  let wake: (() => void) | undefined;
  let watcher: FSWatcher | undefined;

  const notify = () => {
    pending = true;
    const resolve = wake;
    wake = undefined;
    resolve?.();
  };

  const attach = () => {
    if (watcher !== undefined || closed) return;
    try {
      watcher = watch(paths.inboxesDirectory, { persistent: false }, (_event, fileName) => {
        if (fileName === null || fileName === paths.inboxFileName) notify();
      });
      watcher.on('error', () => {
        // The folder went away or the watch broke: the poll tick re-attaches.
        watcher?.close();
        watcher = undefined;
      });
    } catch {
      watcher = undefined; // The folder does not exist yet; the poll tick retries.
    }
  };

  const timer = setInterval(() => {
    attach();
    notify();
  }, pollIntervalMs);

  const close = () => {
    if (closed) return;
    closed = true;
    clearInterval(timer);
    watcher?.close();
    watcher = undefined;
    notify();
  };

  options.signal?.addEventListener('abort', close, { once: true });
  if (options.signal?.aborted) close();
  attach();

  return {
    get hasPendingChange() {
      return pending;
    },
    close,
    [Symbol.asyncIterator]() {
      return {
        async next(): Promise<IteratorResult<void>> {
          while (!closed && !pending) {
            await new Promise<void>((resolve) => {
              wake = resolve;
            });
          }
          if (closed) return { done: true, value: undefined };
          pending = false;
          return { done: false, value: undefined };
        },
        async return(): Promise<IteratorResult<void>> {
          close();
          return { done: true, value: undefined };
        },
      };
    },
  };
}
