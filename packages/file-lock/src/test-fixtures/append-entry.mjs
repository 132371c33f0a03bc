// Appends <entry> to {"entries": [...]} with updateFile and prints "written", or
// "failed <code>" and the error message on the next line when it was refused.
// Usage: node append-entry.mjs <file> <entry> <staleMs> <deadlineMs>
import { updateFile } from '../../dist/index.js';

const [file, entry, staleText, deadlineText] = process.argv.slice(2);
try {
  await updateFile(file, {
    parse: (text) => JSON.parse(text),
    serialize: (value) => JSON.stringify(value),
    update: (current) => ({ entries: [...(current?.entries ?? []), entry] }),
    staleMs: Number(staleText),
    deadlineMs: Number(deadlineText),
  });
  console.log('written');
} catch (error) {
  console.log(`failed ${error.code}`);
  console.log(String(error.message).replace(/\n/g, ' '));
}
