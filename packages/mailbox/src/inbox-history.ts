import { readdirSync } from 'node:fs';
import {
  agentNameToFileName,
  assertSafePathSegment,
  createRootLayout,
  type InboxMessage,
} from '@muster/protocol';
import {
  historyDirectory,
  historyFilePath,
  type HistoryProblemReporter,
} from './inbox-history-files.js';
import { inboxEntryIdentity, newEntriesOf, parseHistoryText } from './inbox-history-format.js';
import { parseInboxText } from './inbox-format.js';
import { MailboxError, systemErrorCode, toMailboxError } from './mailbox-error.js';
import { RootGuard } from './safe-files.js';

/** One entry of an inbox's history. */
export interface InboxHistoryEntry {
  /** The entry as it was (or is) in the inbox. */
  entry: InboxMessage;
  /**
   * Where muster knows it from: `history` (a follower saw it), `archive` (muster's mailbox
   * moved it to `<agent>.archive.jsonl`), or `inbox` (it is in the inbox now).
   */
  source: 'history' | 'archive' | 'inbox';
  /** When a follower first saw it (ISO-8601); only for `history`. */
  firstSeenAt?: string;
}

/** Options of {@link readInboxHistory}. */
export interface ReadInboxHistoryOptions {
  /** The muster root. */
  root: string;
  /** The team (its folder may be gone). */
  team: string;
  /** Whose inbox: a name as in `send` (`name` or `name@team`). */
  agent: string;
  /** Told about lines or files that were skipped because they do not parse. */
  onProblem?: HistoryProblemReporter;
}

/**
 * Every entry ever seen in one inbox, oldest first (by `timestamp`; equal times keep the
 * order muster learned of them), each once: the history written by `followInboxes`, plus
 * muster's archive of that inbox and what the inbox holds now (entries no follower saw).
 * An entry is the same entry in all three when its identity matches (`msg_id`, else
 * `from|timestamp|text`, and the rest of the entry except `read`); equal entries that
 * occur together count as many times as they occur. Works after the team folder is gone
 * (only the history is left then). A missing history, archive or inbox is empty; lines and
 * files that do not parse are skipped and reported to `onProblem`.
 */
export async function readInboxHistory(
  options: ReadInboxHistoryOptions,
): Promise<InboxHistoryEntry[]> {
  checkNames(options);
  const { root, team, agent } = options;
  const report: HistoryProblemReporter = options.onProblem ?? (() => {});
  const guard = new RootGuard(root);
  const layout = createRootLayout(root);
  const historyFile = historyFilePath(root, team, agent);
  const archiveFile = layout.inboxArchivePath(team, agent);
  const inboxFile = layout.inboxPath(team, agent);

  const history = readOptional(guard, historyFile);
  const parsedHistory = parseHistoryText(history ?? '');
  for (const problem of parsedHistory.problems) report(historyFile, problem);
  if (parsedHistory.tornTail) report(historyFile, 'the last line is cut short; skipped');

  const archived = readArchive(guard, archiveFile, report);
  let current: unknown[] = [];
  const inboxText = readOptional(guard, inboxFile);
  if (inboxText !== undefined) {
    try {
      current = parseInboxText(inboxText, inboxFile);
    } catch (error) {
      report(inboxFile, `not a JSON array, skipped (${(error as Error).message})`);
    }
  }

  const merged: InboxHistoryEntry[] = parsedHistory.lines.map((line) => ({
    entry: line.entry,
    source: 'history',
    firstSeenAt: line.seenAt,
  }));
  // The archive and the inbox hold different entries (muster moves them from one to the
  // other), so together they are one snapshot; what the history already holds is not new.
  const counts = new Map<string, number>();
  for (const line of parsedHistory.lines) {
    const identity = inboxEntryIdentity(line.entry);
    counts.set(identity, (counts.get(identity) ?? 0) + 1);
  }
  const { fresh } = newEntriesOf([...archived, ...current], counts);
  const archivedIdentities = new Map<string, number>();
  for (const entry of archived) {
    if (entry === null || typeof entry !== 'object') continue;
    const identity = inboxEntryIdentity(entry as Record<string, unknown>);
    archivedIdentities.set(identity, (archivedIdentities.get(identity) ?? 0) + 1);
  }
  for (const entry of fresh) {
    const identity = inboxEntryIdentity(entry);
    const inArchive = archivedIdentities.get(identity) ?? 0;
    if (inArchive > 0) archivedIdentities.set(identity, inArchive - 1);
    merged.push({ entry, source: inArchive > 0 ? 'archive' : 'inbox' });
  }
  return merged
    .map((item, order) => ({ item, order, time: Date.parse(item.entry.timestamp) }))
    .sort((left, right) => left.time - right.time || left.order - right.order)
    .map(({ item }) => item);
}

/**
 * The inboxes of a team that have a history or exist now, as file names without extension
 * (`@` shown as `-`), sorted. Works after the team folder is gone.
 */
export async function inboxHistoryAgents(options: {
  root: string;
  team: string;
}): Promise<string[]> {
  checkNames({ ...options, agent: 'x' });
  const guard = new RootGuard(options.root);
  const names = new Set<string>();
  const list = (folder: string, suffix: string) => {
    try {
      if (guard.check(folder)?.isDirectory() !== true) return;
      for (const name of readdirSync(folder)) {
        if (name.endsWith(suffix) && name.length > suffix.length)
          names.add(name.slice(0, -suffix.length));
      }
    } catch (error) {
      throw toMailboxError(error, 'list the inboxes', folder);
    }
  };
  list(historyDirectory(options.root, options.team), '.jsonl');
  list(createRootLayout(options.root).inboxesDirectory(options.team), '.json');
  return [...names].sort();
}

function checkNames(options: { root: string; team: string; agent: string }): void {
  try {
    if (typeof options?.root !== 'string' || options.root.trim() === '') {
      throw new Error('root must be the muster root folder (a non-empty string).');
    }
    assertSafePathSegment(String(options.team), 'team name');
    agentNameToFileName(String(options.agent));
  } catch (error) {
    throw new MailboxError({
      code: 'INVALID_NAME',
      message: `Cannot read the inbox history: ${(error as Error).message}`,
      cause: error,
      details: { team: options?.team, agent: options?.agent },
    });
  }
}

function readOptional(guard: RootGuard, file: string): string | undefined {
  try {
    return guard.readText(file)?.text;
  } catch (error) {
    if (systemErrorCode(error) === 'ENOENT' || systemErrorCode(error) === 'ENOTDIR')
      return undefined;
    throw toMailboxError(error, 'read', file);
  }
}

function readArchive(guard: RootGuard, file: string, report: HistoryProblemReporter): unknown[] {
  const text = readOptional(guard, file);
  if (text === undefined) return [];
  const entries: unknown[] = [];
  text.split('\n').forEach((line, index) => {
    if (line.trim() === '') return;
    try {
      entries.push(JSON.parse(line));
    } catch {
      report(file, `line ${index + 1}: not JSON; skipped`);
    }
  });
  return entries;
}
