// Takes the lock on a file through @muster/file-lock and keeps it until killed, so a test
// can leave a lock behind whose owner record names a dead process.
import { acquireFileLock } from '@muster/file-lock';

const file = process.argv[2];
await acquireFileLock(file);
console.log('locked');
setInterval(() => {}, 1_000);
