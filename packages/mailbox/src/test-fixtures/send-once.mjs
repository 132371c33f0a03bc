// Test child: sends one message and prints `ack <text>`, or `error <code> <delivered>` with
// the error's `details.delivered` as JSON (`false`: certainly not delivered).
// Usage: node send-once.mjs <root> <team> <recipient> <text> [deadlineMs]
import { createMailbox } from '../../dist/index.js';

const [root, team, recipient, text, deadlineText] = process.argv.slice(2);
const mailbox = createMailbox({
  root,
  team,
  recipientCheck: 'none',
  lock: { deadlineMs: Number(deadlineText ?? 30_000) },
});
process.stdout.write('ready\n');
try {
  await mailbox.send(recipient, { from: 'sender', text });
  process.stdout.write(`ack ${text}\n`);
} catch (error) {
  process.stdout.write(`error ${error.code} ${JSON.stringify(error.details?.delivered)}\n`);
  process.stderr.write(`${error.message}\n`);
}
