// A lead process for the tmux tests: starts members through the tmux backend on a private
// server (argv: <socketName> <root> <teamName> <memberMode>...), waits until each is ready,
// prints one JSON line {serverPid, socketPath, members: [{agentId, panePid}]}, then idles
// until killed. Built code only: run `pnpm --filter @muster/backends build` first.
import { createTmuxBackend } from '../dist/index.js';

const [socketName, root, teamName, ...modes] = process.argv.slice(2);
const fixture = new URL('./member.mjs', import.meta.url).pathname;
const backend = createTmuxBackend({ socketName });
const members = [];
for (const [index, mode] of modes.entries()) {
  const agentName = `member${index}`;
  const member = await backend.spawn({
    root,
    teamName,
    agentName,
    agentId: `${agentName}@${teamName}`,
    cwd: root,
    command: { file: process.execPath, args: [fixture, mode] },
    environment: process.env.MEMBER_FIXTURE_LOG
      ? { MEMBER_FIXTURE_LOG: process.env.MEMBER_FIXTURE_LOG }
      : {},
  });
  await member.ready;
  members.push(member);
}
const [first] = members;
process.stdout.write(
  `${JSON.stringify({
    serverPid: first?.identity.serverPid,
    socketPath: first?.identity.socketPath,
    members: members.map((member) => ({
      agentId: member.spec.agentId,
      panePid: member.identity.panePid,
    })),
  })}\n`,
);
setInterval(() => {}, 60_000);
