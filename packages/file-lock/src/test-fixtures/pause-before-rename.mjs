// A holder paused at the worst moment: takes the lock on <file>, reads it, makes the last
// check updateFile makes (the lock is still its own), prints "checked", stops itself with
// SIGSTOP, and once continued replaces the file with <entry> appended (the rename), then
// releases and prints "written" (or "release <code>" first when the lock was taken away).
// Usage: node pause-before-rename.mjs <file> <entry> <staleMs>
import { acquireFileLock, readFileSnapshot, writeFileAtomic } from '../../dist/index.js';

const [file, entry, staleText] = process.argv.slice(2);
const lock = await acquireFileLock(file, { staleMs: Number(staleText) });
const snapshot = await readFileSnapshot(lock.file);
const value = JSON.parse(snapshot?.text ?? '{"entries":[]}');
if (!lock.isHeldNow()) throw new Error('lost the lock before the check');
console.log('checked');
process.kill(process.pid, 'SIGSTOP');
await writeFileAtomic(lock.file, JSON.stringify({ entries: [...value.entries, entry] }));
await lock.release().catch((error) => console.log(`release ${error.code}`));
console.log('written');
