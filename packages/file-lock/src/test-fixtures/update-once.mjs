// One updateFile of <file> (creating it and its folder), then exits. Run under strace by the
// durability test to see the flushes the kernel is actually asked for.
// Usage: node update-once.mjs <file> [<root>]
import { updateFile } from '../../dist/index.js';

const [file, root] = process.argv.slice(2);
await updateFile(file, {
  ...(root === undefined ? {} : { root }),
  parse: (text) => JSON.parse(text),
  serialize: (value) => JSON.stringify(value),
  update: (current) => ({ count: (current?.count ?? 0) + 1 }),
});
console.log('done');
