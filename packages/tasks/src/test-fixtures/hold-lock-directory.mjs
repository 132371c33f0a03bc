// Holds a lock directory the way Claude Code 2.1.330 does (mkdir <file>.lock, rmdir to
// release), with no owner record. Usage: node hold-lock-directory.mjs <lockDirectory>
// <releaseFile> <releasingMarker>. Prints "held", waits until <releaseFile> exists, writes
// <releasingMarker>, removes the lock directory, prints "released".
import { existsSync, mkdirSync, rmdirSync, writeFileSync } from 'node:fs';

const [lockDirectory, releaseFile, releasingMarker] = process.argv.slice(2);
mkdirSync(lockDirectory);
process.stdout.write('held\n');
while (!existsSync(releaseFile)) await new Promise((resolve) => setTimeout(resolve, 5));
writeFileSync(releasingMarker, '');
rmdirSync(lockDirectory);
process.stdout.write('released\n');
