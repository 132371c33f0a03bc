// The shells of one agent: where their output files live, the ones running in the
// background, and the API later tools (TaskOutput, TaskStop) and UIs use to list them, read
// their output and kill them. Everything here dies with the agent (`onAgentClose`); ended
// shells past a bound are pruned before that (background-shells-pruning.ts).
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ToolContext } from '@muster/query';
import { ToolError } from '@muster/query';
import {
  DEFAULT_MAX_FINISHED_SHELLS,
  pruneFinishedShells,
  prunedShellError,
  type PrunedShellNote,
} from './background-shells-pruning.js';
import { readCappedOutput } from './bash-tool-output.js';
import type { ShellOutcome, ShellRun } from './bash-tool-process.js';

/** Where a background shell is. */
export type BackgroundShellStatus = 'running' | 'completed' | 'failed' | 'killed';

/** What is known about one background shell. */
export interface BackgroundShellInfo {
  /** Its id (`bash-1`, `bash-2`, … per agent): what TaskOutput and TaskStop take. */
  id: string;
  /** The command line. */
  command: string;
  /** The description the model gave, if any. */
  description?: string;
  /** `running`, or how it ended: `completed` (exit 0), `failed` (another exit code, or a signal), `killed`. */
  status: BackgroundShellStatus;
  /** When it started (ISO 8601). */
  startedAt: string;
  /** How it ended, once it has. */
  outcome?: ShellOutcome;
  /** When it ended (ISO 8601), once it has. */
  endedAt?: string;
  /** The file holding its stdout and stderr (removed when the agent closes). */
  outputPath: string;
  /** Bytes of earlier output thrown away because the file passed its size limit (the shell kept running). */
  discardedBytes: number;
}

/** A background shell's output as read by {@link BackgroundShells.readOutput}. */
export interface BackgroundShellOutput {
  /** The shell, after any wait. */
  shell: BackgroundShellInfo;
  /** The output (capped, cut in the middle when long). */
  output: string;
  /** Whether the output was cut. */
  truncated: boolean;
  /** Whether the shell is still running (after the wait, when `block` was asked). */
  stillRunning: boolean;
}

/** Options of {@link BackgroundShells.readOutput}. */
export interface ReadShellOutputOptions {
  /** Wait for the shell to end first (default false). */
  block?: boolean;
  /** The longest wait in milliseconds when blocking (default 30 000). */
  timeoutMs?: number;
  /** Ends the wait early (the shell keeps running). */
  signal?: AbortSignal;
  /** Only the output written since the previous read with this flag (default false: all of it). */
  sinceLastRead?: boolean;
  /** Cap on characters returned (default 30 000). */
  maxChars?: number;
}

/**
 * One agent's background shells. Ended shells past the Bash tool's `maxFinishedShells` (default
 * 32) are pruned — record and output file — the longest ended first, those whose output was
 * read since they ended before those never read; running shells are never pruned. A pruned id
 * is refused with `SHELL_PRUNED`, saying so.
 */
export interface BackgroundShells {
  /** The background shells this agent started and still keeps (running, or ended and not pruned), oldest first. */
  list(): BackgroundShellInfo[];
  /** One shell, or undefined (unknown or pruned). */
  get(id: string): BackgroundShellInfo | undefined;
  /** A shell's output; refuses a pruned id with a `ToolError` `SHELL_PRUNED`, an unknown one with `UNKNOWN_SHELL` listing the known ones. */
  readOutput(id: string, options?: ReadShellOutputOptions): Promise<BackgroundShellOutput>;
  /** Kills a shell's whole process group (and its leftovers) and resolves once they are gone; a shell that already ended is returned as is (a pruned one is refused like `readOutput`). */
  kill(id: string): Promise<BackgroundShellInfo>;
}

/** One background shell's bookkeeping (internal). */
export interface ShellRecord {
  info: BackgroundShellInfo;
  run: ShellRun;
  readFrom: number;
  /** Order in which shells ended (1, 2, …), once this one has. */
  endOrder?: number;
  /** Whether its output was read after it ended. */
  readAfterEnd: boolean;
  /** Reads in progress: a record being read is not pruned. */
  reading: number;
}

/** Per-agent shell bookkeeping (internal to the Bash tool and this file). */
export interface ShellRegistry {
  directory?: Promise<string>;
  shells: Map<string, ShellRecord>;
  /** Number of the next background shell (`bash-<n>`). */
  nextNumber: number;
  /** Number of the next foreground call's output file (`call-<n>`). */
  nextCallNumber: number;
  /** Ended shells kept before the oldest are pruned. */
  maxFinishedShells: number;
  /** Shells that have ended so far (orders `endOrder`). */
  endedCount: number;
  /** Notes on pruned shells, oldest first (at most `MAX_PRUNED_NOTES`). */
  pruned: Map<string, PrunedShellNote>;
}

const REGISTRY_KEY = Symbol.for('@muster/tools/shell-registry');

/** The agent's shell registry, created on first use. */
export function shellRegistry(context: Pick<ToolContext, 'state'>): ShellRegistry {
  return context.state.get<ShellRegistry>(REGISTRY_KEY, () => ({
    shells: new Map(),
    nextNumber: 1,
    nextCallNumber: 1,
    maxFinishedShells: DEFAULT_MAX_FINISHED_SHELLS,
    endedCount: 0,
    pruned: new Map(),
  }));
}

/**
 * A fresh path for an output file in the agent's own directory (created on first use under
 * `outputRoot`, default the OS temp directory, mode 0o700; removed when the agent closes,
 * after its background shells are killed).
 */
export async function newOutputPath(
  context: Pick<ToolContext, 'state' | 'agent' | 'onAgentClose'>,
  outputRoot: string | undefined,
  name: string,
): Promise<string> {
  const registry = shellRegistry(context);
  if (!registry.directory) {
    const safeName = context.agent.name
      .toLowerCase()
      .replace(/[^a-z0-9-]+/g, '-')
      .slice(0, 40);
    const creating = mkdtemp(path.join(outputRoot ?? tmpdir(), `muster-bash-${safeName}-`));
    registry.directory = creating;
    context.onAgentClose(async () => {
      await Promise.allSettled([...registry.shells.values()].map((record) => record.run.stop()));
      await rm(await creating, { recursive: true, force: true });
    });
  }
  return path.join(await registry.directory, `${name}.output`);
}

function statusOf(outcome: ShellOutcome): BackgroundShellStatus {
  if (outcome.end === 'killed') return 'killed';
  return outcome.end === 'exited' && outcome.exitCode === 0 ? 'completed' : 'failed';
}

/**
 * Records a started background shell; it is killed when the agent closes unless it ends first.
 * `maxFinishedShells` (the Bash tool's option) bounds the ended shells the agent keeps.
 */
export function registerBackgroundShell(
  context: Pick<ToolContext, 'state' | 'onAgentClose'>,
  run: ShellRun,
  details: {
    id: string;
    command: string;
    description?: string;
    outputPath: string;
    maxFinishedShells?: number;
  },
): BackgroundShellInfo {
  const registry = shellRegistry(context);
  if (details.maxFinishedShells !== undefined) {
    registry.maxFinishedShells = details.maxFinishedShells;
  }
  const info: BackgroundShellInfo = {
    id: details.id,
    command: details.command,
    ...(details.description === undefined ? {} : { description: details.description }),
    status: 'running',
    startedAt: new Date().toISOString(),
    outputPath: details.outputPath,
    discardedBytes: 0,
  };
  const record: ShellRecord = { info, run, readFrom: 0, readAfterEnd: false, reading: 0 };
  registry.shells.set(details.id, record);
  pruneFinishedShells(registry);
  const unregister = context.onAgentClose(async () => {
    await run.stop();
  });
  void run.outcome.then((outcome) => {
    info.outcome = outcome;
    info.status = statusOf(outcome);
    info.endedAt = new Date().toISOString();
    registry.endedCount += 1;
    record.endOrder = registry.endedCount;
    unregister();
    pruneFinishedShells(registry);
  });
  return info;
}

function snapshot(record: ShellRecord): BackgroundShellInfo {
  const info = record.info;
  return {
    ...info,
    ...(info.outcome ? { outcome: { ...info.outcome } } : {}),
    discardedBytes: record.run.discardedBytes(),
  };
}

function waitForEnd(record: ShellRecord, timeoutMs: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, timeoutMs);
    signal?.addEventListener('abort', done, { once: true });
    if (signal?.aborted) done();
    // `info.status` is updated by the outcome handler registered first, so it is final here.
    void record.run.outcome.then(done);
  });
}

/** Reads a shell's output file from where `options` say (all, or since the last such read). */
async function readShellFile(
  record: ShellRecord,
  id: string,
  options: ReadShellOutputOptions,
): Promise<{ text: string; truncated: boolean }> {
  const outputGone = (error: NodeJS.ErrnoException): never => {
    throw error.code === 'ENOENT'
      ? new ToolError(
          `The output of background shell ${id} is gone (its agent was closed, or ${record.info.outputPath} was removed).`,
          'SHELL_OUTPUT_GONE',
          { id },
        )
      : error;
  };
  // After output was discarded the file restarted from 0: a saved offset past its end is stale.
  const size = await stat(record.info.outputPath).then((stats) => stats.size, outputGone);
  const from = options.sinceLastRead && record.readFrom <= size ? record.readFrom : 0;
  const read = await readCappedOutput(
    record.info.outputPath,
    options.maxChars ?? 30_000,
    from,
  ).catch(outputGone);
  if (options.sinceLastRead) record.readFrom = read.endByte;
  return read;
}

/** The background shells of the agent `context` belongs to: list them, read their output, kill them. */
export function backgroundShells(context: Pick<ToolContext, 'state'>): BackgroundShells {
  const registry = shellRegistry(context);
  const find = (id: string): ShellRecord => {
    if (typeof id !== 'string' || id.length === 0) {
      throw new ToolError(
        'A background shell id must be a non-empty string (like "bash-1").',
        'UNKNOWN_SHELL',
      );
    }
    const record = registry.shells.get(id);
    if (record) return record;
    const pruned = prunedShellError(registry, id);
    if (pruned) throw pruned;
    const known = [...registry.shells.keys()];
    throw new ToolError(
      `No background shell "${id}" in this agent. ` +
        (known.length === 0
          ? 'It has started none: run a command with Bash and run_in_background: true first.'
          : `Known shells: ${known.join(', ')}.`),
      'UNKNOWN_SHELL',
      { id, known },
    );
  };
  return {
    list: () => [...registry.shells.values()].map((record) => snapshot(record)),
    get: (id) => {
      const record = registry.shells.get(id);
      return record ? snapshot(record) : undefined;
    },
    async readOutput(id, options = {}) {
      const record = find(id);
      const timeoutMs = options.timeoutMs ?? 30_000;
      if (!Number.isFinite(timeoutMs) || timeoutMs < 0 || timeoutMs > 600_000) {
        throw new ToolError(
          `timeoutMs must be between 0 and 600000 milliseconds; got ${String(timeoutMs)}.`,
          'INVALID_INPUT',
        );
      }
      // A record being read is not pruned; the pass after the read catches up.
      record.reading += 1;
      try {
        if (options.block && record.info.status === 'running') {
          await waitForEnd(record, timeoutMs, options.signal);
        }
        const endedBeforeRead = record.info.status !== 'running';
        const read = await readShellFile(record, id, options);
        if (endedBeforeRead) record.readAfterEnd = true;
        return {
          shell: snapshot(record),
          output: read.text,
          truncated: read.truncated,
          stillRunning: record.info.status === 'running',
        };
      } finally {
        record.reading -= 1;
        pruneFinishedShells(registry);
      }
    },
    async kill(id) {
      const record = find(id);
      if (record.info.status === 'running') {
        // The outcome handler of registerBackgroundShell runs first, so `info` is final here.
        await record.run.stop();
      }
      return snapshot(record);
    },
  };
}
