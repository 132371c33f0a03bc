import { existsSync, watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import { createRootLayout } from '@muster/protocol';

/** A running watch on a team's folders. */
export interface TeamFolderWatch {
  /** The folders being watched right now (missing ones are watched through their parent). */
  watchedFolders(): string[];
  close(): void;
}

/** Options of {@link watchTeamFolders}. */
export interface WatchTeamFoldersOptions {
  /** Changes closer together than this are reported once. Default 25 ms. */
  debounceMs?: number;
}

/**
 * Calls `onChange` shortly after anything changes in a team's folders — `teams/{team}`
 * (config), its `inboxes`, muster's sidecar and `tasks/{team}` — using the operating
 * system's file watch, not a poll. A folder that does not exist yet is watched through its
 * nearest existing parent, so it is picked up as soon as it is created; after every change
 * the set of watched folders is brought up to date.
 */
export function watchTeamFolders(
  root: string,
  team: string,
  onChange: () => void,
  options: WatchTeamFoldersOptions = {},
): TeamFolderWatch {
  const layout = createRootLayout(root);
  const targets = [
    layout.teamDirectory(team),
    layout.inboxesDirectory(team),
    layout.sidecarDirectory(team),
    layout.tasksDirectory(team),
  ];
  const watchers = new Map<string, FSWatcher>();
  const debounceMs = options.debounceMs ?? 25;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  const nearestExisting = (folder: string): string => {
    let current = folder;
    while (!existsSync(current)) {
      const parent = path.dirname(current);
      if (parent === current || !parent.startsWith(layout.root)) return layout.root;
      current = parent;
    }
    return current;
  };

  const changed = () => {
    if (closed) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      if (closed) return;
      rearm();
      onChange();
    }, debounceMs);
  };

  const rearm = () => {
    // Watches are not recursive: the sidecar's mailbox spools change on every send, but the
    // inbox write that follows is what the dashboard shows.
    const wanted = new Set(targets.map(nearestExisting));
    for (const [folder, watcher] of watchers) {
      if (!wanted.has(folder) || !existsSync(folder)) {
        watcher.close();
        watchers.delete(folder);
      }
    }
    for (const folder of wanted) {
      if (watchers.has(folder)) continue;
      try {
        const watcher = watch(folder, { persistent: true }, changed);
        watcher.on('error', () => {
          watcher.close();
          watchers.delete(folder);
          changed();
        });
        watchers.set(folder, watcher);
      } catch {
        // The folder vanished between the check and the watch: the parent's watch sees it.
      }
    }
  };

  rearm();
  return {
    watchedFolders: () => [...watchers.keys()].sort(),
    close: () => {
      closed = true;
      if (timer) clearTimeout(timer);
      for (const watcher of watchers.values()) watcher.close();
      watchers.clear();
    },
  };
}
