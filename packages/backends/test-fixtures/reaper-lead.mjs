// A lead process whose in-process members each run a "tool" the way @muster/tools' Bash does
// (`/bin/bash -c …` detached: its own session and group), with the member's
// `context.environment` (the lead run marker) in the tool's environment. The tool leaves a
// background grandchild and a `setsid` grandchild behind. Prints one JSON line once every
// member is ready: { runId, reaperPid, toolPids }, then waits to be killed.
// Usage: node reaper-lead.mjs <folder> [members]
import { spawn } from 'node:child_process';
import { createInProcessBackend, sharedProcessReaper } from '../dist/index.js';

const [folder, count = '2'] = process.argv.slice(2);
if (!folder) {
  console.error('usage: node reaper-lead.mjs <folder> [members]');
  process.exit(2);
}
const team = 'reaped';
const backend = createInProcessBackend();
const toolPids = [];
for (let index = 0; index < Number(count); index += 1) {
  const agentName = `member-${index}`;
  const handle = await backend.spawn({
    root: folder,
    teamName: team,
    agentName,
    agentId: `${agentName}@${team}`,
    cwd: folder,
    run: async (context) => {
      const tool = spawn('/bin/bash', ['-c', 'sleep 1000 & setsid sleep 1000 & wait'], {
        detached: true,
        stdio: 'ignore',
        cwd: context.cwd,
        env: { ...process.env, ...context.environment },
      });
      toolPids.push(tool.pid);
      context.signal.addEventListener('abort', () => process.kill(-tool.pid, 'SIGKILL'));
      context.ready();
      await new Promise(() => {});
    },
  });
  await handle.ready;
}
const reaper = await sharedProcessReaper();
console.log(JSON.stringify({ runId: reaper.runId, reaperPid: reaper.pid, toolPids }));
setInterval(() => {}, 60_000);
