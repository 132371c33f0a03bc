// Time from starting `muster run -p` (a real process) to its lead's first model request, the
// model being @muster/scripted-model (a TEST DOUBLE of the Messages API) on a local port that
// answers "Done." at once. Prints the median and the fastest of several runs, and the whole
// run's wall time; `--json` prints the figures as JSON. Never asserted (issue 17: goal 500 ms).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { startScriptedModel } from '@muster/scripted-model';

const here = path.dirname(fileURLToPath(import.meta.url));
const cli = path.resolve(here, '../dist/cli.js');
const runs = Number(process.env.MUSTER_BENCH_RUNS ?? 10);

let firstRequestAt;
const model = await startScriptedModel({
  script: (request) => {
    firstRequestAt ??= performance.timeOrigin + performance.now();
    return { content: [{ type: 'text', text: `Done (request ${request.index}).` }] };
  },
});
const firstRequest = [];
const whole = [];
try {
  for (let run = 0; run < runs; run += 1) {
    const folder = mkdtempSync(path.join(tmpdir(), 'muster-bench-run-'));
    firstRequestAt = undefined;
    const startedAt = performance.timeOrigin + performance.now();
    const code = await new Promise((resolve) => {
      const child = spawn(
        process.execPath,
        [cli, 'run', '-p', 'Say done.', '--root', path.join(folder, 'root'), '--cwd', folder],
        {
          stdio: 'ignore',
          env: { ...process.env, ANTHROPIC_API_KEY: 'bench-key', ANTHROPIC_BASE_URL: model.url },
        },
      );
      child.on('close', resolve);
    });
    const endedAt = performance.timeOrigin + performance.now();
    rmSync(folder, { recursive: true, force: true });
    if (code !== 0 || firstRequestAt === undefined) {
      throw new Error(`muster run -p ended with ${code} before its first request`);
    }
    firstRequest.push(firstRequestAt - startedAt);
    whole.push(endedAt - startedAt);
  }
} finally {
  await model.close();
}
const figure = (values) => {
  const sorted = [...values].sort((left, right) => left - right);
  return {
    medianMs: Math.round(sorted[Math.floor(sorted.length / 2)]),
    minimumMs: Math.round(sorted[0]),
  };
};
const figures = {
  runs,
  firstLeadRequest: figure(firstRequest),
  wholeRun: figure(whole),
};
if (process.argv.includes('--json')) {
  console.log(JSON.stringify(figures, null, 2));
} else {
  console.log(`muster run -p, ${runs} runs (median / fastest):`);
  console.log(
    `  start → first lead request  ${String(figures.firstLeadRequest.medianMs).padStart(5)} ms / ${String(figures.firstLeadRequest.minimumMs).padStart(5)} ms`,
  );
  console.log(
    `  start → exit (one turn)     ${String(figures.wholeRun.medianMs).padStart(5)} ms / ${String(figures.wholeRun.minimumMs).padStart(5)} ms`,
  );
}
