// A muster create paused at the worst moment: takes the team lock (tasks/<team>/.lock),
// picks the next id, makes the last check (the lock is still its own), prints "checked",
// stops itself with SIGSTOP and, once continued, writes the task file, releases the lock and
// prints "written <id>".
// Usage: node paused-create.mjs <root> <team> <staleMs>
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { acquireFileLock, writeFileAtomic } from '@muster/file-lock';

const [root, team, staleText] = process.argv.slice(2);
const folder = path.join(root, 'tasks', team);
const lock = await acquireFileLock(path.join(folder, '.lock'), {
  root,
  staleMs: Number(staleText),
});
const ids = readdirSync(folder)
  .map((name) => /^(\d+)\.json$/.exec(name)?.[1])
  .filter((id) => id !== undefined)
  .map(Number);
const id = String(Math.max(0, ...ids) + 1);
const task = {
  id,
  subject: 'Paused create',
  description: 'written after SIGCONT',
  status: 'pending',
  blocks: [],
  blockedBy: [],
};
if (!lock.isHeldNow()) throw new Error('lost the team lock before the check');
console.log('checked');
process.kill(process.pid, 'SIGSTOP');
await writeFileAtomic(path.join(folder, `${id}.json`), JSON.stringify(task, null, 2), { root });
await lock.release().catch((error) => console.log(`release ${error.code}`));
console.log(`written ${id}`);
