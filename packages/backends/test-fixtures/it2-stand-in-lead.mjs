// A lead process for the iTerm2 backend's orphan test (R31), run with the it2 STAND-IN (not
// iTerm2) on its PATH: it opens the iTerm2 backend, starts the members named on the command
// line (`<name>:<member.mjs mode>` each) in stand-in panes, prints one JSON line
// {"ready":true,"members":[{"agentId","pid","pgid","paneId"}]} once all are ready, then idles
// until it is killed. Built code only: run `pnpm --filter @muster/backends build` first.
// Usage: node it2-stand-in-lead.mjs <root> <team> <name:mode>...
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createITermBackend } from '../dist/index.js';

const [root, teamName, ...members] = process.argv.slice(2);
if (!root || !teamName || members.length === 0) {
  process.stderr.write('usage: it2-stand-in-lead.mjs <root> <team> <name:mode>...\n');
  process.exit(2);
}
const memberFixture = path.join(path.dirname(fileURLToPath(import.meta.url)), 'member.mjs');
// Launch scripts go under the test's root, so the test removes them (a killed lead cannot).
const backend = createITermBackend({ environment: process.env, scriptDirectory: root });
const handles = [];
for (const entry of members) {
  const [name, mode] = entry.split(':');
  handles.push(
    await backend.spawn({
      root,
      teamName,
      agentName: name,
      agentId: `${name}@${teamName}`,
      cwd: root,
      command: { file: process.execPath, args: [memberFixture, mode ?? 'idle'] },
      readyTimeoutMs: 30_000,
    }),
  );
}
await Promise.all(handles.map((handle) => handle.ready));
const described = handles.map((handle) => ({ agentId: handle.spec.agentId, ...handle.describe() }));
process.stdout.write(`${JSON.stringify({ ready: true, members: described })}\n`);
setInterval(() => {}, 60_000);
