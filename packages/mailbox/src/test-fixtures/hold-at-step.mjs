// Test child for fault injection. Sends every text to `recipient` at once; the first commit
// that reaches `step` (and matches `when`: `direct`, or `claimed` = claimed spool files)
// prints `paused <step>` and then waits until `goFile` exists — the test kills, stops or
// resumes the process meanwhile. Prints `ack <text>` for every send that resolved.
// Usage: node hold-at-step.mjs <root> <team> <recipient> <step> <when> <goFile> <staleMs> <text>...
import { existsSync } from 'node:fs';
import { createFileMailboxStore, createMailbox } from '../../dist/index.js';

const [root, team, recipient, step, when, goFile, staleText, ...texts] = process.argv.slice(2);
const lock = { deadlineMs: 30_000, staleMs: Number(staleText) };
let paused = false;
const store = createFileMailboxStore({
  root,
  team,
  lock,
  async onCommitStep(reached, info) {
    if (paused || reached !== step) return;
    if (when === 'direct' ? !info.direct : info.claimed === 0) return;
    paused = true;
    process.stdout.write(`paused ${reached} claimed=${info.claimed} direct=${info.direct}\n`);
    while (!existsSync(goFile)) await new Promise((resolve) => setTimeout(resolve, 20));
  },
});
const mailbox = createMailbox({ root, team, lock, recipientCheck: 'none', store });
process.stdout.write('ready\n');
await Promise.all(
  texts.map(async (text) => {
    await mailbox.send(recipient, { from: 'holder', text });
    process.stdout.write(`ack ${text}\n`);
  }),
);
process.stdout.write('done\n');
