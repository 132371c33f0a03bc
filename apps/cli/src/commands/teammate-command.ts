// `muster teammate …`: one teammate of a muster team in this terminal, as a lead's tmux,
// iTerm2 or pty backend starts it. A thin command: the flags (Claude Code's names) are parsed,
// and everything else done, by `runProcessTeammateCommand` of @muster/agents.
import type { CommandContext } from '../context.js';

/** Runs the process teammate with the flags after `teammate`; resolves with its exit code. */
export async function teammateCommand(
  context: CommandContext,
  flags: readonly string[] = [],
): Promise<number> {
  const { runProcessTeammateCommand } = await import('@muster/agents');
  return runProcessTeammateCommand({
    argv: flags,
    environment: context.environment,
    stdout: context.streams.stdout,
    stderr: context.streams.stderr,
    root: context.root,
  });
}
