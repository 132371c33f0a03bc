// A stand-in for `muster teammate` (issue 17) in the spawn tests: records the arguments it was
// started with (one JSON line to TEAMMATE_FIXTURE_LOG), connects back to the lead link, says
// ready, then stays until it is killed or the lead is gone. Uses the built @muster/backends.
import { appendFileSync } from 'node:fs';
import { connectToLead, endMemberBecauseLeadIsGone } from '@muster/backends';

const log = process.env.TEAMMATE_FIXTURE_LOG;
if (log) {
  appendFileSync(
    log,
    `${JSON.stringify({ argv: process.argv.slice(2), cwd: process.cwd(), agentId: process.env.MUSTER_AGENT_ID })}\n`,
  );
}
const keepAlive = setInterval(() => undefined, 1000);
const link = await connectToLead({
  endOwnProcesses: true,
  onLeadGone(reason) {
    clearInterval(keepAlive);
    endMemberBecauseLeadIsGone(reason);
  },
});
await link.ready();
process.on('SIGTERM', () => {
  clearInterval(keepAlive);
  link.close();
  process.exit(0);
});
