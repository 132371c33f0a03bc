// An agent that keeps writing files while its worktree is being cleaned up.
// Usage: node racing-writer.mjs <absolute|relative> <worktree> <control-folder>
// It writes nothing until <control>/go exists, then writes agent-file-N.txt in a loop
// (absolute: into <worktree> by absolute path, creating the folder again if it is gone,
// as an editor tool would; relative: into its working folder, the worktree), appends each
// name to <control>/written.log only after the write succeeded, creates <control>/ready
// after its fifth file, and stops when <control>/stop exists.
import { appendFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const [mode, worktree, control] = process.argv.slice(2);
const go = path.join(control, 'go');
const stop = path.join(control, 'stop');
let written = 0;
console.log('started');
while (!existsSync(stop)) {
  if (existsSync(go)) {
    const name = `agent-file-${written}.txt`;
    try {
      if (mode === 'absolute') {
        mkdirSync(worktree, { recursive: true });
        writeFileSync(path.join(worktree, name), `work ${written}\n`);
      } else {
        writeFileSync(name, `work ${written}\n`);
      }
      appendFileSync(path.join(control, 'written.log'), `${name}\n`);
      written += 1;
      if (written === 5) writeFileSync(path.join(control, 'ready'), '');
    } catch (error) {
      appendFileSync(path.join(control, 'errors.log'), `${name}: ${error.code}\n`);
    }
  }
  await sleep(5);
}
