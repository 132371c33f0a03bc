// A create hook for tests: makes the suggested folder (or the one in argv[2]), records
// what it was given, and prints the path last. `fail` as argv[2] makes it exit with 3.
import { mkdirSync, writeFileSync, readFileSync } from 'node:fs';
import path from 'node:path';

const mode = process.argv[2];
if (mode === 'fail') {
  process.stderr.write('the workspace server said no\n');
  process.exit(3);
}
const target =
  mode === 'nowhere' ? '/nonexistent/muster-hook-folder' : process.env.MUSTER_WORKTREE_PATH;
if (mode !== 'nowhere') {
  mkdirSync(target, { recursive: true });
  writeFileSync(
    path.join(target, 'hook-facts.json'),
    JSON.stringify({
      stdin: JSON.parse(readFileSync(0, 'utf8')),
      slug: process.env.MUSTER_WORKTREE_SLUG,
      root: process.env.MUSTER_REPOSITORY_ROOT,
      cwd: process.cwd(),
    }),
  );
}
console.log('creating workspace…');
console.log(target);
