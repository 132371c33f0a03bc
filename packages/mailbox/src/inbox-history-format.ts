import { createHash } from 'node:crypto';
import { InboxMessageSchema, type InboxMessage } from '@muster/protocol';

// The history of an inbox is a JSON Lines file, one line per entry ever seen:
// `{"seenAt":"<ISO time it was first seen>","entry":{…the entry as it was in the inbox…}}`.
// Lines are only ever appended. This file holds the pure parts: how entries are told apart,
// how lines are written and read back, and which entries of an inbox snapshot are new.

/** One line of a history file: an inbox entry and when muster first saw it. */
export interface InboxHistoryLine {
  /** When a follower first read the entry in the inbox (ISO-8601, milliseconds, Z). */
  seenAt: string;
  /** The entry as it was in the inbox (unknown fields kept). */
  entry: InboxMessage;
}

/**
 * The identity of an inbox entry: its `msg_id` when it has one (2.1.330 and muster's own v2
 * entries), else `from|timestamp|text` (the rule Claude Code itself uses to match entries),
 * plus a digest of the whole entry without `read`. The digest keeps apart two entries that
 * share a `msg_id` but differ (a replayed id with other content is a forgery, and history
 * must show it rather than hide it behind the genuine entry); `read` is left out because a
 * 2.1.45 reader flips it in place. Two equal entries in one inbox are still two entries:
 * that is counted by multiplicity, not by identity (see {@link newEntriesOf}).
 */
export function inboxEntryIdentity(entry: Readonly<Record<string, unknown>>): string {
  const messageId = entry.msg_id;
  const base =
    typeof messageId === 'string'
      ? `id:${messageId}`
      : `from-timestamp-text:${JSON.stringify([entry.from, entry.timestamp, entry.text])}`;
  const { read: _read, ...rest } = entry;
  const digest = createHash('sha256').update(canonicalText(rest)).digest('base64url');
  return `${base}#${digest.slice(0, 22)}`;
}

/** JSON with object keys sorted at every level, so key order never changes an identity. */
function canonicalText(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalText).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record)
      .filter((key) => record[key] !== undefined)
      .sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalText(record[key])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The text of one history line, newline included. */
export function formatHistoryLine(line: InboxHistoryLine): string {
  return `${JSON.stringify({ seenAt: line.seenAt, entry: line.entry })}\n`;
}

/** What {@link parseHistoryText} found. */
export interface ParsedHistory {
  lines: InboxHistoryLine[];
  /** Lines that are not history lines, as `line N: reason` (1-based). */
  problems: string[];
  /** True when the text ends with a partial line (a write cut short): it was skipped. */
  tornTail: boolean;
}

/**
 * Parses history text (a whole file, or the part after a known offset). A last line
 * without its newline is a write cut short and is skipped (`tornTail`); any other line
 * that is not `{seenAt, entry}` with a valid entry is skipped and named in `problems`.
 */
export function parseHistoryText(text: string, firstLineNumber = 1): ParsedHistory {
  const parts = text.split('\n');
  const tail = parts.pop() ?? '';
  const lines: InboxHistoryLine[] = [];
  const problems: string[] = [];
  parts.forEach((part, index) => {
    if (part.trim() === '') return;
    const parsed = parseHistoryLine(part);
    if (typeof parsed === 'string') problems.push(`line ${firstLineNumber + index}: ${parsed}`);
    else lines.push(parsed);
  });
  return { lines, problems, tornTail: tail !== '' };
}

function parseHistoryLine(text: string): InboxHistoryLine | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'not JSON';
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'not an object';
  const { seenAt, entry } = value as { seenAt?: unknown; entry?: unknown };
  if (typeof seenAt !== 'string' || !Number.isFinite(Date.parse(seenAt))) {
    return 'seenAt is not a time';
  }
  const checked = InboxMessageSchema.safeParse(entry);
  if (!checked.success) return 'entry is not an inbox entry';
  return { seenAt, entry: entry as InboxMessage };
}

/** Counts of entries by identity: how many of each a history (or a snapshot) holds. */
export type IdentityCounts = Map<string, number>;

/** Adds entries to identity counts. */
export function countEntries(
  counts: IdentityCounts,
  entries: Iterable<Readonly<Record<string, unknown>>>,
): void {
  for (const entry of entries) {
    const identity = inboxEntryIdentity(entry);
    counts.set(identity, (counts.get(identity) ?? 0) + 1);
  }
}

/** An inbox element that is not a valid entry, and why. */
export interface InvalidInboxElement {
  index: number;
  problem: string;
}

/** What {@link newEntriesOf} found in one inbox snapshot. */
export interface SnapshotNews {
  /** Entries not yet counted, in file order, each as often as it is new. */
  fresh: InboxMessage[];
  /** Elements that are not valid inbox entries (never recorded). */
  invalid: InvalidInboxElement[];
}

/**
 * What is known about one inbox element, by its JSON text: an entry and its identity, or
 * why it is not an entry. Re-reading an inbox re-reads the same elements many times; the
 * cache spares checking and hashing them again.
 */
export type ElementCache = Map<string, { identity: string } | { problem: string }>;

const elementCacheLimit = 20_000;

/** Elements longer than this (as JSON) are checked every time rather than kept as keys. */
const cachedElementLimit = 16_384;

function describeElement(element: unknown, cache: ElementCache | undefined) {
  const text = cache === undefined ? undefined : JSON.stringify(element);
  const key = text !== undefined && text.length <= cachedElementLimit ? text : undefined;
  const cached = key === undefined ? undefined : cache?.get(key);
  if (cached !== undefined) return cached;
  const checked = InboxMessageSchema.safeParse(element);
  const described = checked.success
    ? { identity: inboxEntryIdentity(element as InboxMessage) }
    : { problem: checked.error.issues[0]?.message ?? 'not an inbox entry' };
  if (key !== undefined && cache !== undefined) {
    if (cache.size >= elementCacheLimit) cache.clear();
    cache.set(key, described);
  }
  return described;
}

/**
 * The entries of one inbox snapshot that `counts` does not hold yet. An identity that
 * occurs `n` times in the snapshot and `k < n` times in the counts yields its last `n - k`
 * occurrences: two equal entries in one file are two entries, but an entry seen again in a
 * later snapshot is the same entry (Claude Code removes equal entries together, so a later
 * equal one cannot be told from a re-read). Does not change `counts`.
 */
export function newEntriesOf(
  elements: readonly unknown[],
  counts: IdentityCounts,
  cache?: ElementCache,
): SnapshotNews {
  const inSnapshot: IdentityCounts = new Map();
  const fresh: InboxMessage[] = [];
  const invalid: InvalidInboxElement[] = [];
  elements.forEach((element, index) => {
    const described = describeElement(element, cache);
    if ('problem' in described) {
      invalid.push({ index, problem: described.problem });
      return;
    }
    const occurrence = (inSnapshot.get(described.identity) ?? 0) + 1;
    inSnapshot.set(described.identity, occurrence);
    if (occurrence > (counts.get(described.identity) ?? 0)) fresh.push(element as InboxMessage);
  });
  return { fresh, invalid };
}
