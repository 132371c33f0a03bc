// Worker-thread entry of `followInboxes` (built to dist/follow-inbox-worker.js). It runs as
// one of two threads: the reader, which watches the inboxes folder and reads an inbox the
// moment it changes (nothing slow, so a busy caller or a slow disk write cannot delay it),
// and the recorder, which turns what the reader read into history lines.
import { parentPort, workerData } from 'node:worker_threads';
import { MusterError } from '@muster/protocol';
import { startInboxReader, type InboxReader } from './follow-inbox-reader.js';
import { createSnapshotRecorder } from './follow-inbox-recorder.js';
import type {
  ErrorDescription,
  SnapshotMessage,
  WorkerInput,
  WorkerMessage,
} from './follow-inbox-messages.js';

const parent = parentPort;
if (parent === null) {
  throw new Error('follow-inbox-worker.js runs only as a worker thread started by followInboxes.');
}
const post = (message: WorkerMessage) => parent.postMessage(message);
const input = workerData as WorkerInput;

function describeError(error: unknown): ErrorDescription {
  if (MusterError.isInstance(error)) {
    return { code: error.code, message: error.message, details: error.details };
  }
  return { code: 'IO_ERROR', message: error instanceof Error ? error.message : String(error) };
}

if (input.role === 'reader') {
  let reader: InboxReader | undefined;
  try {
    reader = startInboxReader({
      root: input.root,
      team: input.team,
      pollIntervalMs: input.pollIntervalMs,
      onSnapshot: (snapshot) =>
        input.port.postMessage({ type: 'snapshot', snapshot } satisfies SnapshotMessage),
      onNotice: (notice) => post({ type: 'notice', notice }),
      onFatal: (error) => post({ type: 'fatal', error: describeError(error) }),
    });
    post({ type: 'started', mode: reader.mode });
  } catch (error) {
    post({ type: 'fatal', error: describeError(error) });
  }
  parent.on('message', (message: { type: string }) => {
    if (message.type !== 'stop') return;
    const counts = reader?.stop() ?? { mode: 'watch', inboxReads: 0, unparsableReads: 0 };
    input.port.postMessage({ type: 'end' } satisfies SnapshotMessage);
    input.port.close();
    post({ type: 'reader-stopped', counts });
    parent.close();
  });
} else {
  try {
    const recorder = createSnapshotRecorder({
      root: input.root,
      team: input.team,
      onRecorded: (entries) => post({ type: 'recorded', entries }),
      onNotice: (notice) => post({ type: 'notice', notice }),
      onFatal: (error) => post({ type: 'fatal', error: describeError(error) }),
    });
    input.port.on('message', (message: SnapshotMessage) => {
      if (message.type === 'snapshot') {
        recorder.add(message.snapshot);
        return;
      }
      void recorder.flush().then(() => {
        post({ type: 'recorder-flushed', recorded: recorder.recorded });
        input.port.close();
        parent.close();
      });
    });
    post({ type: 'started', mode: 'watch' });
  } catch (error) {
    post({ type: 'fatal', error: describeError(error) });
  }
}
