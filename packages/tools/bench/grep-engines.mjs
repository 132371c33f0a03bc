// Grep and Glob figures on a real tree (default: this repository): time per call with ripgrep
// and with the built-in engine, and whether both gave the same text. Prints figures (and
// `--json`); asserts nothing. Run after `pnpm --filter @muster/tools build`:
//   node packages/tools/bench/grep-engines.mjs [--json] [--root <folder>] [--runs <n>]
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createGlobTool, createGrepTool } from '../dist/index.js';

const argumentsList = process.argv.slice(2);
const option = (name, fallback) => {
  const index = argumentsList.indexOf(name);
  return index >= 0 ? argumentsList[index + 1] : fallback;
};
const asJson = argumentsList.includes('--json');
const root = path.resolve(
  option('--root', path.join(path.dirname(fileURLToPath(import.meta.url)), '../../..')),
);
const runs = Number(option('--runs', '3'));

const context = {
  agent: { name: 'bench', id: 'bench@local' },
  cwd: root,
  roots: { read: [root], write: [] },
  signal: new AbortController().signal,
  toolUseId: 'toolu_bench',
  state: { get: (_key, create) => create() },
  onAgentClose: () => () => undefined,
  environment: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
};

const cases = [
  { name: 'files: TODO', input: { pattern: 'TODO' } },
  {
    name: 'content: export function, *.ts',
    input: {
      pattern: 'export function \\w+',
      glob: '*.ts',
      output_mode: 'content',
      head_limit: 50,
    },
  },
  {
    name: 'count: -i error, type ts',
    input: { pattern: 'error', '-i': true, type: 'ts', output_mode: 'count' },
  },
  {
    name: 'content: multiline',
    input: {
      pattern: 'catch \\(error\\) \\{\\n\\s+throw',
      multiline: true,
      output_mode: 'content',
    },
  },
];

async function time(call) {
  const samples = [];
  let result;
  for (let run = 0; run < runs; run += 1) {
    const start = process.hrtime.bigint();
    result = await call();
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  samples.sort((left, right) => left - right);
  return { medianMs: Math.round(samples[Math.floor(samples.length / 2)]), result };
}

const figures = [];
for (const { name, input } of cases) {
  const byRipgrep = await time(() => createGrepTool({ engine: 'ripgrep' }).call(input, context));
  const byBuiltin = await time(() => createGrepTool({ engine: 'builtin' }).call(input, context));
  figures.push({
    case: name,
    ripgrepMs: byRipgrep.medianMs,
    builtinMs: byBuiltin.medianMs,
    files: byRipgrep.result.data.numFiles,
    sameText: byRipgrep.result.content === byBuiltin.result.content,
  });
}
const glob = await time(() => createGlobTool().call({ pattern: '**/*.ts' }, context));
figures.push({ case: 'Glob **/*.ts', globMs: glob.medianMs, files: glob.result.data.numFiles });

if (asJson) {
  console.log(JSON.stringify({ root, runs, figures }, null, 2));
} else {
  console.log(`Grep engines on ${root} (median of ${runs} runs)`);
  for (const figure of figures) console.log(JSON.stringify(figure));
}
