export { FileLockError } from './file-lock-error.js';
export type { FileLockErrorCode } from './file-lock-error.js';
export {
  acquireFileLock,
  defaultDeadlineMs,
  defaultStaleMs,
  withFileLock,
} from './acquire-file-lock.js';
export type { HeldLock, LockOptions } from './acquire-file-lock.js';
export { resolveLockPath } from './lock-paths.js';
export {
  makeDirectoryInsideRoot,
  openInsideRoot,
  resolveInsideRoot,
  syncDirectory,
} from './inside-root.js';
export type { RootOption } from './inside-root.js';
export { writeFileAtomic } from './atomic-write.js';
export type { WriteFileAtomicOptions } from './atomic-write.js';
export { quarantineFile, readFileSnapshot } from './file-snapshot.js';
export type { FileIdentity, FileSnapshot } from './file-snapshot.js';
export { skipWrite, updateFile } from './update-file.js';
export type { UpdateFileOptions, UpdateFileResult } from './update-file.js';
export {
  currentProcessIdentity,
  isProcessAlive,
  isProcessStopped,
  isRecordedProcessDead,
  readProcessStat,
} from './process-identity.js';
export type { ProcessIdentity, ProcessStat } from './process-identity.js';
export { parseOwnerRecord } from './owner-record.js';
export type { OwnerRecord } from './owner-record.js';
