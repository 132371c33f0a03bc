// Appends <entry> to {"entries": [...]} with updateFile. On the first attempt the update
// prints "updating 1" and then waits <firstDelayMs> (so a test can pause the process
// mid-update); later attempts print "updating <n>" and return at once.
// Usage: node slow-update.mjs <file> <entry> <firstDelayMs> <staleMs>
import { updateFile } from '../../dist/index.js';

const [file, entry, delayText, staleText] = process.argv.slice(2);
let attempts = 0;
const result = await updateFile(file, {
  parse: (text) => JSON.parse(text),
  serialize: (value) => JSON.stringify(value, null, 2),
  update: async (current) => {
    attempts += 1;
    console.log(`updating ${attempts}`);
    if (attempts === 1) await new Promise((resolve) => setTimeout(resolve, Number(delayText)));
    return { entries: [...(current?.entries ?? []), entry] };
  },
  staleMs: Number(staleText),
  deadlineMs: 30_000,
});
console.log(`done attempts=${attempts} written=${result.written}`);
