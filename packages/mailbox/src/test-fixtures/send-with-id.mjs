// Test child: sends one message with a given msg_id. With a step other than `none`, the
// first commit that reaches it prints `paused <step>` and waits until `goFile` exists (the
// test kills the process meanwhile). Prints `ack <messageId>`, or `error <code> <delivered>`.
// Usage: node send-with-id.mjs <root> <team> <recipient> <messageId> <text> <step> <goFile>
import { existsSync } from 'node:fs';
import { createFileMailboxStore, createMailbox } from '../../dist/index.js';

const [root, team, recipient, messageId, text, step, goFile] = process.argv.slice(2);
const lock = { deadlineMs: 30_000 };
const store = createFileMailboxStore({
  root,
  team,
  lock,
  async onCommitStep(reached) {
    if (reached !== step) return;
    process.stdout.write(`paused ${reached}\n`);
    while (!existsSync(goFile)) await new Promise((resolve) => setTimeout(resolve, 20));
  },
});
const mailbox = createMailbox({ root, team, lock, recipientCheck: 'none', store });
process.stdout.write('ready\n');
try {
  const receipt = await mailbox.send(recipient, { from: 'sender', text }, { messageId });
  process.stdout.write(`ack ${receipt.messageId}\n`);
} catch (error) {
  process.stdout.write(`error ${error.code} ${JSON.stringify(error.details?.delivered)}\n`);
  process.stderr.write(`${error.message}\n`);
}
