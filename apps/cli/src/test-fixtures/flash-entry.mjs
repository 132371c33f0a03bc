// Appends one 2.1.330-style entry to an inbox by temp file + rename, as Claude Code writes,
// and removes it again after a delay (delivery by removal), then prints "removed".
// Usage: node flash-entry.mjs <inbox file> <from> <text> <lifetime ms>
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';

const [file, from, text, lifetime] = process.argv.slice(2);
const replace = (content) => {
  const temporary = `${file}.tmp.${randomBytes(4).toString('hex')}`;
  writeFileSync(temporary, content);
  renameSync(temporary, file);
};
const before = readFileSync(file, 'utf8');
const entry = {
  from,
  text,
  timestamp: new Date().toISOString(),
  color: 'green',
  msgV: 1,
  msg_id: randomUUID(),
  type: 'message',
  read: false,
};
replace(JSON.stringify([...JSON.parse(before), entry], null, 2));
setTimeout(() => {
  replace(before);
  console.log('removed');
}, Number(lifetime));
