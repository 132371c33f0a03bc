// Keeps an agent's background-shell records bounded: a long-lived agent that starts many
// background shells would otherwise keep every record and every output file until it closes.
// Running shells are never pruned; past a bound, the shells that ended longest ago go first
// (those whose output was read after they ended before those never read), their output files
// are removed, and a short note remembers each one so a later read says "pruned", not "unknown".
import { rm } from 'node:fs/promises';
import { ToolError } from '@muster/query';
import type { BackgroundShellStatus, ShellRecord, ShellRegistry } from './background-shells.js';

/** Ended background shells an agent keeps by default (`createBashTool({ maxFinishedShells })`). */
export const DEFAULT_MAX_FINISHED_SHELLS = 32;

/** Notes on pruned shells kept per agent; older pruned ids are still recognised by number. */
export const MAX_PRUNED_NOTES = 256;

/** What is remembered of a pruned background shell. */
export interface PrunedShellNote {
  /** The shell's id. */
  id: string;
  /** Its command line, cut to 200 characters. */
  command: string;
  /** How it ended. */
  status: Exclude<BackgroundShellStatus, 'running'>;
  /** Its exit code, when it exited. */
  exitCode?: number;
}

/** The record's place among ended shells: read-since-ended first, then the longest ended. */
function pruneOrder(left: ShellRecord, right: ShellRecord): number {
  if (left.readAfterEnd !== right.readAfterEnd) return left.readAfterEnd ? -1 : 1;
  return (left.endOrder ?? 0) - (right.endOrder ?? 0);
}

/**
 * Prunes ended shells past `registry.maxFinishedShells`: removes their records and output
 * files and keeps a note of each. Shells being read right now are left for a later pass.
 */
export function pruneFinishedShells(registry: ShellRegistry): void {
  const ended = [...registry.shells.values()].filter((record) => record.info.status !== 'running');
  const excess = ended.length - registry.maxFinishedShells;
  if (excess <= 0) return;
  const candidates = ended.filter((record) => record.reading === 0).sort(pruneOrder);
  for (const record of candidates.slice(0, excess)) {
    const { info } = record;
    registry.shells.delete(info.id);
    const exitCode = info.outcome?.exitCode;
    registry.pruned.set(info.id, {
      id: info.id,
      command: info.command.length > 200 ? `${info.command.slice(0, 199)}…` : info.command,
      status: info.status as PrunedShellNote['status'],
      ...(typeof exitCode === 'number' ? { exitCode } : {}),
    });
    // The directory itself goes when the agent closes; a failed removal only leaves a file there.
    void rm(info.outputPath, { force: true }).catch(() => undefined);
  }
  for (const id of registry.pruned.keys()) {
    if (registry.pruned.size <= MAX_PRUNED_NOTES) break;
    registry.pruned.delete(id);
  }
}

/** The `SHELL_PRUNED` error for `id` when it names a pruned shell, else undefined. */
export function prunedShellError(registry: ShellRegistry, id: string): ToolError | undefined {
  const keep = `this agent keeps the ${registry.maxFinishedShells} background shells that ended most recently, and the output of a pruned one is removed with it. Run the command again if you still need its output.`;
  const note = registry.pruned.get(id);
  if (note) {
    const ending =
      note.exitCode === undefined ? note.status : `${note.status}, exit code ${note.exitCode}`;
    return new ToolError(
      `Background shell ${id} (${JSON.stringify(note.command)}) ended (${ending}) and was pruned: ${keep}`,
      'SHELL_PRUNED',
      { ...note },
    );
  }
  const number = /^bash-([1-9][0-9]*)$/.exec(id)?.[1];
  if (number !== undefined && Number(number) < registry.nextNumber && !registry.shells.has(id)) {
    return new ToolError(
      `Background shell ${id} ended long ago and was pruned: ${keep}`,
      'SHELL_PRUNED',
      { id },
    );
  }
  return undefined;
}
