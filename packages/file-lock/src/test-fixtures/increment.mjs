// Adds `count` entries to a JSON file, one locked update each.
// Usage: node increment.mjs <file> <count> <id>
import { updateFile } from '../../dist/index.js';

const [file, countText, id] = process.argv.slice(2);
const count = Number(countText);
for (let index = 0; index < count; index += 1) {
  await updateFile(file, {
    parse: (text) => JSON.parse(text),
    serialize: (value) => JSON.stringify(value, null, 2),
    update: (current) => {
      const value = current ?? { count: 0, entries: [] };
      return { count: value.count + 1, entries: [...value.entries, `${id}-${index}`] };
    },
    deadlineMs: 60_000,
  });
}
console.log('done');
