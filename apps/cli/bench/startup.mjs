// Start-up time of the built `muster` command, as a real process: bare `node` for
// comparison, `--version` and `--help` (which must not load the packages, ink or react),
// and commands that do work on a copy of a Claude Code reference state. Prints the
// median and the fastest of several runs; `--json` prints the figures as JSON.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const cli = path.resolve(here, '../dist/cli.js');
const reference = path.resolve(
  here,
  '../../../fixtures/claude-code-2.1.45/06-all-teammates-spawned',
);
const runs = Number(process.env.MUSTER_BENCH_RUNS ?? 15);
const root = mkdtempSync(path.join(tmpdir(), 'muster-bench-'));
cpSync(reference, root, { recursive: true });

const cases = {
  'node -e 0 (baseline)': ['-e', '0'],
  'muster --version': [cli, '--version'],
  'muster --help': [cli, '--help'],
  'muster run --help': [cli, 'run', '--help'],
  'muster inbox team-lead': [cli, 'inbox', 'team-lead', '--root', root],
  'muster tasks list': [cli, 'tasks', 'list', '--root', root],
  'muster watch --once': [cli, 'watch', '--once', '--root', root],
  'muster doctor': [cli, 'doctor', '--root', root],
};
const timings = Object.fromEntries(Object.keys(cases).map((name) => [name, []]));
try {
  // Interleaved, so a burst of load on the machine hits every case alike.
  for (let run = 0; run < runs; run += 1) {
    for (const [name, args] of Object.entries(cases)) {
      const started = process.hrtime.bigint();
      execFileSync(process.execPath, args, { stdio: 'ignore' });
      timings[name].push(Number(process.hrtime.bigint() - started) / 1e6);
    }
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}
const figures = Object.entries(timings).map(([name, values]) => {
  const sorted = [...values].sort((left, right) => left - right);
  return {
    name,
    medianMs: Math.round(sorted[Math.floor(sorted.length / 2)]),
    minimumMs: Math.round(sorted[0]),
  };
});
if (process.argv.includes('--json')) {
  console.log(JSON.stringify({ runs, figures }, null, 2));
} else {
  console.log(`muster start-up, ${runs} runs each (median / fastest):`);
  for (const figure of figures) {
    console.log(
      `  ${figure.name.padEnd(24)} ${String(figure.medianMs).padStart(5)} ms / ${String(figure.minimumMs).padStart(5)} ms`,
    );
  }
}
