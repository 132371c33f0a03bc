// Test child: follows a team's inboxes with followInboxes (worker thread, from dist/) until
// SIGTERM, then prints `stopped <summary JSON>`. Prints `ready` once following, `entry
// <msg_id or text>` for each entry recorded and `notice <kind>` for each notice.
// Usage: node follow-team.mjs <root> <team> [worker|main]
import { followInboxes } from '../../dist/index.js';

const [root, team, thread = 'worker'] = process.argv.slice(2);
const controller = new AbortController();
process.on('SIGTERM', () => controller.abort());
const follower = await followInboxes({
  root,
  team,
  thread,
  signal: controller.signal,
  onEntry: ({ entry }) => process.stdout.write(`entry ${entry.msg_id ?? entry.text}\n`),
  onNotice: (notice) => process.stdout.write(`notice ${notice.kind}\n`),
});
process.stdout.write(`ready ${follower.mode}\n`);
const summary = await follower.stopped;
process.stdout.write(`stopped ${JSON.stringify(summary)}\n`);
