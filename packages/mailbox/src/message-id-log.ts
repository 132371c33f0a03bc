import { closeSync, constants, fsyncSync, renameSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { InboxMessage } from '@muster/protocol';
import type { InboxPaths } from './inbox-paths.js';
import { isInvalidEntry } from './inbox-format.js';
import { syncDirectory } from './safe-files.js';

// Every `msg_id` a commit puts into an inbox is also appended to `message-ids` beside
// muster's queue folders (through the commit record, so exactly once, after the rename).
// A Claude Code 2.1.330 reader deletes entries as it delivers them, so the inbox alone
// cannot tell whether an entry was ever there; this log can, for the newest
// `messageIdLogCapacity` ids. Only a send that names its own `messageId` (a retry) pays
// for reading it. Synchronous I/O: it runs under the inbox lock (see spool.ts).

/** How many of the newest ids the log keeps (it is cut back to this at twice the size). */
export const messageIdLogCapacity = 10_000;
/** A v4 UUID plus its newline. */
const lineBytes = 37;

/** The `msg_id` of an entry when it has a string one. */
export function messageIdOf(message: InboxMessage): string | undefined {
  if (isInvalidEntry(message)) return undefined;
  const id = (message as { msg_id?: unknown }).msg_id;
  return typeof id === 'string' && id.length > 0 ? id : undefined;
}

/** The ids in the log (a missing log is empty). */
export function readMessageIdLog(paths: InboxPaths): Set<string> {
  const read = paths.guard.readText(paths.messageIdLog);
  if (read === undefined) return new Set();
  return new Set(read.text.split('\n').filter((line) => line.length > 0));
}

/** The log lines for some ids. */
export function messageIdLines(ids: readonly string[]): string {
  return ids.map((id) => `${id}\n`).join('');
}

/**
 * Cuts the log back to its newest {@link messageIdLogCapacity} ids once it holds about twice
 * that: a durable temp file renamed over it. Call it under the inbox lock, before a commit
 * computes where its own lines go.
 */
export function trimMessageIdLog(paths: InboxPaths): void {
  if (paths.guard.size(paths.messageIdLog) <= 2 * messageIdLogCapacity * lineBytes) return;
  const read = paths.guard.readText(paths.messageIdLog);
  if (read === undefined) return;
  const lines = read.text.split('\n').filter((line) => line.length > 0);
  const kept = messageIdLines(lines.slice(-messageIdLogCapacity));
  const temporary = path.join(paths.sidecarDirectory, `message-ids.${process.pid}.tmp`);
  const descriptor = paths.guard.open(
    temporary,
    constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC,
    0o644,
  );
  try {
    const buffer = Buffer.from(kept, 'utf8');
    let written = 0;
    while (written < buffer.length) {
      written += writeSync(descriptor, buffer, written, buffer.length - written);
    }
    fsyncSync(descriptor);
  } finally {
    closeSync(descriptor);
  }
  renameSync(temporary, paths.messageIdLog);
  syncDirectory(paths.sidecarDirectory);
}

/** Whether the archive holds an entry with this id (read only for sends that name their id). */
export function archiveMentions(archiveText: string, id: string): boolean {
  return archiveText.includes(`"msg_id":${JSON.stringify(id)}`);
}
