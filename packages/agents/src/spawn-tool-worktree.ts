// Worktree isolation for spawned agents (`isolation: worktree`, as a tool parameter or in the
// definition): @muster/worktree makes the agent a worktree of its own; when the agent ends it
// is removed only when it holds nothing worth keeping (fail-closed: any doubt keeps it), and a
// kept worktree is reported with its path, branch and reason.
import { cleanupAgentWorktree, createAgentWorktree } from '@muster/worktree';
import type { SpawnWorktree } from './spawn-tool.js';

/** Options of {@link worktreeIsolation}. */
export interface WorktreeIsolationOptions {
  /** Notified when a worktree is kept (the same text the agent's result carries). */
  onKept?: (notice: string) => void;
}

/**
 * The spawn tool's `createWorktree`: a worktree at `<repo>/.muster/worktrees/agents/<agentId>`
 * of the repository `cwd` is in. Its `cleanup()` resolves `undefined` when the worktree was
 * removed, else a notice saying where it was kept and why.
 */
export function worktreeIsolation(
  options: WorktreeIsolationOptions = {},
): (agentId: string, cwd: string) => Promise<SpawnWorktree> {
  return async (agentId, cwd) => {
    const worktree = await createAgentWorktree(cwd, `agents/${agentId}`);
    let cleaned: Promise<string | undefined> | undefined;
    return {
      path: worktree.path,
      cleanup() {
        cleaned ??= cleanupAgentWorktree(worktree).then(
          (result) => {
            if (!result.kept) return undefined;
            const notice = `The agent's worktree was kept at ${result.path}${result.branch === undefined ? '' : ` (branch ${result.branch})`}: ${result.reason}`;
            options.onKept?.(notice);
            return notice;
          },
          (error: unknown) => {
            const notice = `The agent's worktree at ${worktree.path} was kept: cleaning it up failed (${error instanceof Error ? error.message : String(error)}).`;
            options.onKept?.(notice);
            return notice;
          },
        );
        return cleaned;
      },
    };
  };
}

/** Work still running (teammates' worktree cleanups) that `settled()` waits for. */
export function pendingWork(): {
  add: (work: Promise<void>) => void;
  settled: () => Promise<void>;
} {
  const pending = new Set<Promise<void>>();
  return {
    add: (work) => {
      pending.add(work);
      void work.finally(() => pending.delete(work));
    },
    settled: async () => {
      await Promise.allSettled([...pending]);
    },
  };
}
