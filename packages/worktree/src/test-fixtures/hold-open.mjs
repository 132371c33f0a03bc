// Holds one file open (read-only, from a working folder elsewhere) until it is killed.
// Usage: node hold-open.mjs <file>
import { openSync } from 'node:fs';

openSync(process.argv[2], 'r');
console.log('holding');
setInterval(() => {}, 1_000);
