// One real process creating (or cleaning up) one worktree, for the concurrency tests.
// Usage: node worktree-process.mjs create <repo> <slug> <sparse:yes|no> <startAt>
//        node worktree-process.mjs cleanup <worktree-json> <startAt>
import { setTimeout as sleep } from 'node:timers/promises';
import { cleanupAgentWorktree, createAgentWorktree } from '../../dist/index.js';

const [mode, ...rest] = process.argv.slice(2);
const startAt = Number(rest.at(-1));
// Wait for a shared moment so every process reaches git at about the same time.
while (Date.now() < startAt) await sleep(Math.min(20, startAt - Date.now()));

if (mode === 'create') {
  const [repo, slug, sparse] = rest;
  const worktree = await createAgentWorktree(repo, slug, {
    ...(sparse === 'yes' ? { sparsePaths: ['src'] } : {}),
  });
  console.log(JSON.stringify(worktree));
} else {
  const result = await cleanupAgentWorktree(JSON.parse(rest[0]));
  console.log(JSON.stringify(result));
}
