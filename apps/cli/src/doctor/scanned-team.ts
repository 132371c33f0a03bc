import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { InboxMessage, Task, TeamConfig } from '@muster/protocol';

/** One inbox file of a team. */
export interface ScannedInbox {
  /** File name without `.json` (the agent name with `@` turned into `-`). */
  agentFileName: string;
  file: string;
  /** Present when the file parsed and validated. */
  messages?: InboxMessage[];
}

/** One task file that parsed and validated. */
export interface ScannedTask {
  task: Task;
  file: string;
}

/** What the scan learned about one team (from `teams/{team}` and `tasks/{team}`). */
export interface ScannedTeam {
  name: string;
  teamDirectory: string;
  hasTeamDirectory: boolean;
  configPath: string;
  /** Present when `config.json` parsed and validated. */
  config?: TeamConfig;
  /** Every inbox file, valid or not. */
  inboxes: ScannedInbox[];
  tasksDirectory: string;
  hasTasksDirectory: boolean;
  tasks: ScannedTask[];
  /** Ids of task files that exist but could not be used (already reported). */
  unusableTaskIds: Set<string>;
  /** Files in `teams/{team}/.muster`, muster's sidecar, by name. */
  sidecarFiles: Map<string, unknown>;
}

/** A folder entry as the scan sees it. */
export interface Entry {
  name: string;
  file: string;
  isDirectory: boolean;
}

/** A folder's entries sorted by name (numbers in order); undefined when it is missing. */
export async function listEntries(directory: string): Promise<Entry[] | undefined> {
  try {
    const entries = await readdir(directory, { withFileTypes: true });
    return entries
      .map((entry) => ({
        name: entry.name,
        file: path.join(directory, entry.name),
        isDirectory: entry.isDirectory(),
      }))
      .sort((left, right) => left.name.localeCompare(right.name, 'en', { numeric: true }));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw error;
  }
}
