// A lead process for the pty tests (R23): it starts one PTY member through the pty backend of
// the built package, then one plain child process, prints their pids and the number of PTY
// masters (/dev/ptmx) the lead and the plain child hold, and waits to be killed.
//   node test-fixtures/pty-lead.mjs <root> <member command…>
import { spawn } from 'node:child_process';
import { readdirSync, readlinkSync } from 'node:fs';
import { createPtyBackend } from '../dist/index.js';

function ptyMasters(pid) {
  return readdirSync(`/proc/${pid}/fd`).filter((descriptor) => {
    try {
      return readlinkSync(`/proc/${pid}/fd/${descriptor}`) === '/dev/ptmx';
    } catch {
      return false;
    }
  }).length;
}

const [root, file, ...args] = process.argv.slice(2);
const backend = createPtyBackend();
const member = await backend.spawn({
  root,
  teamName: 'lead-test',
  agentName: 'worker',
  agentId: 'worker@lead-test',
  cwd: root,
  command: { file, args },
  readiness: 'external',
});
const plain = spawn('sleep', ['1000'], { stdio: 'ignore' });
console.log(
  JSON.stringify({
    memberPid: member.describe().pid,
    hostPid: member.hostPid,
    plainPid: plain.pid,
    leadMasters: ptyMasters(process.pid),
    plainMasters: ptyMasters(plain.pid),
  }),
);
// Stay alive until killed (the member keeps the event loop busy too).
setInterval(() => undefined, 60_000);
