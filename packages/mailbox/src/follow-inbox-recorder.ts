import { MusterError } from '@muster/protocol';
import { readdirSync } from 'node:fs';
import {
  historyDirectory,
  HistoryRecorder,
  type RecordedInboxEntry,
} from './inbox-history-files.js';
import { toMailboxError } from './mailbox-error.js';
import { RootGuard } from './safe-files.js';
import type { FollowNotice } from './follow-inbox-notices.js';

/** One read of one inbox: its file name (`<agent>.json`), its text, and when it was read. */
export interface InboxSnapshot {
  fileName: string;
  /** The inbox file (for messages). */
  file: string;
  text: string;
  /** When it was read (ISO-8601). */
  seenAt: string;
}

/** Options of {@link createSnapshotRecorder}. */
export interface SnapshotRecorderOptions {
  root: string;
  team: string;
  onRecorded: (entries: RecordedInboxEntry[]) => void;
  onNotice: (notice: FollowNotice) => void;
  /** Called once when the history cannot be written; recording stopped. */
  onFatal: (error: MusterError) => void;
}

/** Turns inbox snapshots into history lines, one snapshot after the other. */
export interface SnapshotRecorder {
  add(snapshot: InboxSnapshot): void;
  /** Resolves once every snapshot added so far is recorded (or recording failed). */
  flush(): Promise<void>;
  /** History lines this recorder wrote. */
  readonly recorded: number;
}

/**
 * Records snapshots in the order they were added. Entries already in an agent's history are
 * skipped before any lock is taken; the rest go through {@link HistoryRecorder.record}.
 */
export function createSnapshotRecorder(options: SnapshotRecorderOptions): SnapshotRecorder {
  const recorders = new Map<string, HistoryRecorder>();
  const invalidCounts = new Map<string, number>();
  const queue: InboxSnapshot[] = [];
  let draining: Promise<void> | undefined;
  let failed = false;
  let recorded = 0;

  const recorderFor = (agent: string, announceExisting = true): HistoryRecorder => {
    let recorder = recorders.get(agent);
    if (recorder === undefined) {
      recorder = new HistoryRecorder({
        root: options.root,
        team: options.team,
        agent,
        announceExisting,
        report: (file, problem) =>
          options.onNotice({ kind: 'history-problem', message: `${file}: ${problem}`, file }),
      });
      recorders.set(agent, recorder);
    }
    return recorder;
  };

  // What the history holds when following starts is not news; a history file that appears
  // later (another follower's) is, line by line.
  for (const agent of historyAgentsNow(options.root, options.team)) recorderFor(agent, false);

  const fail = (error: unknown, operation: string, file: string) => {
    if (failed) return;
    failed = true;
    queue.length = 0;
    options.onFatal(toMailboxError(error, operation, file));
  };

  /** Checks one snapshot; returns what to record from it, if anything is new. */
  const examine = (snapshot: InboxSnapshot) => {
    const elements = parseElements(snapshot.text);
    if (elements === undefined) return undefined; // The reader passes only JSON arrays.
    const agent = snapshot.fileName.slice(0, -'.json'.length);
    let recorder: HistoryRecorder;
    try {
      recorder = recorderFor(agent);
    } catch (error) {
      if (MusterError.isInstance(error) && error.code === 'INVALID_NAME') return undefined;
      fail(error, 'read the history file', snapshot.file);
      return undefined;
    }
    const { fresh, invalid } = recorder.newEntries(elements);
    if (invalid.length !== (invalidCounts.get(agent) ?? 0)) {
      invalidCounts.set(agent, invalid.length);
      const first = invalid[0];
      if (first !== undefined) {
        options.onNotice({
          kind: 'invalid-entries',
          message:
            `${snapshot.file} holds ${invalid.length} element(s) that are not inbox entries ` +
            `(first at index ${first.index}: ${first.problem}); they are not recorded.`,
          file: snapshot.file,
        });
      }
    }
    return fresh.length === 0 ? undefined : { recorder, elements, seenAt: snapshot.seenAt };
  };

  /** Records everything queued: one lock per inbox for all its queued snapshots. */
  const recordQueued = async () => {
    const batches = new Map<HistoryRecorder, { elements: unknown[]; seenAt: string }[]>();
    for (const snapshot of queue.splice(0)) {
      const examined = examine(snapshot);
      if (examined === undefined) continue;
      const batch = batches.get(examined.recorder) ?? [];
      batch.push({ elements: examined.elements, seenAt: examined.seenAt });
      batches.set(examined.recorder, batch);
    }
    for (const [recorder, batch] of batches) {
      if (failed) return;
      try {
        const { written, byOthers } = await recorder.record(batch);
        recorded += written.length;
        const all = [...byOthers, ...written];
        if (all.length > 0) options.onRecorded(all);
      } catch (error) {
        fail(error, 'record inbox entries', recorder.file);
      }
    }
  };

  const drain = () => {
    draining ??= (async () => {
      while (queue.length > 0 && !failed) await recordQueued();
      draining = undefined;
    })();
    return draining;
  };

  return {
    add(snapshot) {
      if (failed) return;
      queue.push(snapshot);
      void drain();
    },
    async flush() {
      while (draining !== undefined) await draining;
    },
    get recorded() {
      return recorded;
    },
  };
}

/** The agents (file names) with a history file in the team's history folder now. */
function historyAgentsNow(root: string, team: string): string[] {
  const folder = historyDirectory(root, team);
  if (new RootGuard(root).check(folder)?.isDirectory() !== true) return [];
  return readdirSync(folder)
    .filter((name) => name.endsWith('.jsonl') && name.length > '.jsonl'.length)
    .map((name) => name.slice(0, -'.jsonl'.length));
}

/** The elements of an inbox's text, or undefined when it is not a JSON array. */
function parseElements(text: string): unknown[] | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  // Each element is checked against the inbox entry schema before it is recorded.
  return Array.isArray(value) ? (value as unknown[]) : undefined;
}
