import type { MessagePort } from 'node:worker_threads';
import type { FollowNotice } from './follow-inbox-notices.js';
import type { InboxSnapshot } from './follow-inbox-recorder.js';
import type { RecordedInboxEntry } from './inbox-history-files.js';

/** What `followInboxes` hands each of its two worker threads. */
export interface WorkerInput {
  role: 'reader' | 'recorder';
  root: string;
  team: string;
  pollIntervalMs: number;
  /** The channel from the reader to the recorder (each holds one end). */
  port: MessagePort;
}

/** What the reader sends the recorder, in order. */
export type SnapshotMessage = { type: 'snapshot'; snapshot: InboxSnapshot } | { type: 'end' };

/** An error crossing a thread boundary. */
export interface ErrorDescription {
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

/** The messages the worker threads post to their parent. */
export type WorkerMessage =
  | { type: 'started'; mode: 'watch' | 'poll' }
  | { type: 'recorded'; entries: RecordedInboxEntry[] }
  | { type: 'notice'; notice: FollowNotice }
  | { type: 'fatal'; error: ErrorDescription }
  | {
      type: 'reader-stopped';
      counts: {
        mode: 'watch' | 'poll';
        fallbackReason?: string;
        inboxReads: number;
        unparsableReads: number;
      };
    }
  | { type: 'recorder-flushed'; recorded: number };
