// Test child: sends `count` messages from `writer` to `recipient`, one after another, and
// prints `ack <text>` once each send has resolved (= acknowledged: it is in the inbox).
// Usage: node writer.mjs <root> <team> <recipient> <writer> <count> [staleMs] [pauseEveryMs]
import { createMailbox } from '../../dist/index.js';

const [root, team, recipient, writer, countText, staleText, pauseText] = process.argv.slice(2);
const count = Number(countText);
const mailbox = createMailbox({
  root,
  team,
  recipientCheck: 'none',
  lock: { deadlineMs: 30_000, ...(staleText ? { staleMs: Number(staleText) } : {}) },
});
process.stdout.write('ready\n');
for (let index = 0; index < count; index += 1) {
  const text = `${writer}-${index}`;
  await mailbox.send(recipient, { from: writer, text });
  process.stdout.write(`ack ${text}\n`);
  if (pauseText) await new Promise((resolve) => setTimeout(resolve, Number(pauseText)));
}
process.stdout.write('done\n');
