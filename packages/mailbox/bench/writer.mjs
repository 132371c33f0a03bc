// Benchmark writer process. Waits for "go" on stdin, then sends messages to `reader` and
// prints one JSON line with its send durations.
// Usage: node writer.mjs <root> <team> <writer> <mode: burst|paced> <count|durationMs>
import { createInterface } from 'node:readline';
import { performance } from 'node:perf_hooks';
import { createFileMailboxStore, createMailbox } from '../dist/index.js';

const [root, team, writer, mode, amountText] = process.argv.slice(2);
const amount = Number(amountText);
const lock = { deadlineMs: 60_000 };
// Counts the inbox rewrites this process made and the queued messages they carried, to show
// how well group commit amortises the rewrite.
const commits = { commits: 0, carried: 0 };
const store = createFileMailboxStore({
  root,
  team,
  lock,
  onCommitStep(step, info) {
    if (step !== 'renamed') return;
    commits.commits += 1;
    commits.carried += info.claimed + (info.direct ? 1 : 0);
  },
});
const mailbox = createMailbox({ root, team, lock, store });
const now = () => performance.timeOrigin + performance.now();
const sleep = (milliseconds) => new Promise((resolve) => setTimeout(resolve, milliseconds));

const lines = createInterface({ input: process.stdin });
const go = new Promise((resolve) => lines.once('line', resolve));
process.stdout.write('ready\n');
await go;
lines.close();
const cpuAtStart = process.cpuUsage();

const sendMs = [];
let sequence = 0;
const sendOne = async () => {
  const startedAt = now();
  await mailbox.send('reader', { from: writer, text: `${writer}#${sequence}@${startedAt}` });
  sendMs.push(now() - startedAt);
  sequence += 1;
};
if (mode === 'burst') {
  for (let index = 0; index < amount; index += 1) await sendOne();
} else {
  const stopAt = Date.now() + amount;
  await sleep(Math.random() * 2000);
  while (Date.now() < stopAt) {
    await sendOne();
    await sleep(1000 + Math.random() * 2000);
  }
}
const cpu = process.cpuUsage(cpuAtStart);
const cpuMs = (cpu.user + cpu.system) / 1000;
process.stdout.write(`${JSON.stringify({ writer, sent: sequence, sendMs, cpuMs, ...commits })}\n`);
