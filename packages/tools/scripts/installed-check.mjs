// Run by scripts/check-installable.mjs in an empty folder where only the packed @muster/tools
// and what it depends on were installed with npm: imports it by name and runs Write, Read and
// Bash on a temp folder with a hand-built tool context.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BUILT_IN_TOOL_NAMES, createBuiltInTools } from '@muster/tools';

const folder = mkdtempSync(path.join(tmpdir(), 'muster-tools-check-'));
const values = new Map();
const disposers = [];
const context = (toolUseId) => ({
  agent: { name: 'checker', id: 'checker@installed' },
  cwd: folder,
  roots: { read: [folder], write: [folder] },
  signal: new AbortController().signal,
  toolUseId,
  state: {
    get: (key, create) => (values.has(key) ? values.get(key) : values.set(key, create()).get(key)),
  },
  onAgentClose: (dispose) => (disposers.push(dispose), () => {}),
  environment: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
});
try {
  const tools = Object.fromEntries(createBuiltInTools().map((tool) => [tool.name, tool]));
  if (Object.keys(tools).join(',') !== BUILT_IN_TOOL_NAMES.join(','))
    throw new Error('unexpected tool set');
  const file = path.join(folder, 'note.txt');
  const written = await tools.Write.call(
    { file_path: file, content: 'hello from muster\n' },
    context('t1'),
  );
  const read = await tools.Read.call({ file_path: file }, context('t2'));
  const shell = await tools.Bash.call({ command: 'cat note.txt | wc -l' }, context('t3'));
  const outside = await tools.Write.call(
    { file_path: '../escape.txt', content: 'x' },
    context('t4'),
  ).catch((error) => error);
  if (written.isError || read.isError || shell.isError) throw new Error('a tool call failed');
  if (!String(read.content).includes('hello from muster'))
    throw new Error(`Read gave ${read.content}`);
  if (!String(shell.content).includes('1')) throw new Error(`Bash gave ${shell.content}`);
  if (!(outside instanceof Error) && !outside.isError)
    throw new Error('a write outside the folder was not refused');
  console.log(
    `used @muster/tools: ${BUILT_IN_TOOL_NAMES.join(', ')}; Write, Read and Bash worked; a write outside was refused`,
  );
} finally {
  await Promise.allSettled(disposers.map((dispose) => dispose()));
  rmSync(folder, { recursive: true, force: true });
}
