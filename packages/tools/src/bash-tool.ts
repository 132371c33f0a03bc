// The Bash tool: Claude Code 2.1.45's input schema, muster's process discipline. Every
// command runs in a fresh `/bin/bash -c` in its own process group, in the agent's working
// directory, with the agent's (credential-free) environment; the group dies on timeout, on
// abort, and when the command returns — nothing a command starts outlives the call unless
// it was asked to run in the background, and nothing outlives the agent.
import { stat, unlink } from 'node:fs/promises';
import type { Tool, ToolContext, ToolResult } from '@muster/query';
import { scrubEnvironment, ToolError } from '@muster/query';
import { analyzeShellCommand } from '@muster/permissions';
import { z } from 'zod';
import { newOutputPath, registerBackgroundShell, shellRegistry } from './background-shells.js';
import { DEFAULT_MAX_FINISHED_SHELLS } from './background-shells-pruning.js';
import { readCappedOutput } from './bash-tool-output.js';
import type { ShellEnd, ShellOutcome } from './bash-tool-process.js';
import { startShell } from './bash-tool-process.js';

/** Longest `timeout` a call may ask for (milliseconds), as in Claude Code. */
export const BASH_MAX_TIMEOUT_MS = 600_000;

/** The Bash tool's input (Claude Code 2.1.45's fields). */
export const BashInputSchema = z.strictObject({
  command: z
    .string()
    .refine(
      (command) => command.trim().length > 0,
      'command is empty: give the shell command to run',
    )
    .refine(
      (command) => !command.includes('\0'),
      'command contains a NUL character, which no shell accepts',
    ),
  timeout: z
    .number()
    .refine(
      (timeout) => Number.isFinite(timeout) && timeout > 0,
      'timeout must be a positive number of milliseconds',
    )
    .refine(
      (timeout) => timeout <= BASH_MAX_TIMEOUT_MS,
      `timeout must be at most ${BASH_MAX_TIMEOUT_MS} ms (10 minutes); for longer work use run_in_background: true`,
    )
    .optional(),
  description: z.string().optional(),
  run_in_background: z.boolean().optional(),
  dangerouslyDisableSandbox: z.boolean().optional(),
});

/** A parsed Bash input. */
export type BashInput = z.infer<typeof BashInputSchema>;

/** The JSON Schema the model sees: Claude Code 2.1.45's properties, types and `required`, with muster's descriptions. */
export const BASH_INPUT_JSON_SCHEMA: Record<string, unknown> = {
  type: 'object',
  properties: {
    command: { type: 'string', description: 'The shell command to run (bash syntax).' },
    timeout: {
      type: 'number',
      description: `Milliseconds before the command and everything it started are ended (default 120000, at most ${BASH_MAX_TIMEOUT_MS}).`,
    },
    description: {
      type: 'string',
      description: 'What the command does, in 5–10 words, for the people watching.',
    },
    run_in_background: {
      type: 'boolean',
      description:
        'Return at once with a shell id and keep the command running; read its output with TaskOutput, stop it with TaskStop.',
    },
    dangerouslyDisableSandbox: {
      type: 'boolean',
      description:
        'Accepted for compatibility; muster runs commands without a sandbox, so it changes nothing.',
    },
  },
  required: ['command'],
  additionalProperties: false,
};

/** Options of {@link createBashTool}. */
export interface BashToolOptions {
  /** Timeout when the call gives none (default 120 000 ms; at most 600 000). */
  defaultTimeoutMs?: number;
  /** Characters of output the model gets at most (default 30 000); longer output is cut in the middle. */
  maxOutputChars?: number;
  /** Milliseconds between SIGTERM and SIGKILL when a group is ended (default 1 000). */
  killGraceMs?: number;
  /** A foreground command whose output file grows past this many bytes is ended; a background shell's earlier output is discarded instead (default 64 MiB). */
  maxOutputFileBytes?: number;
  /** Where each agent's output directory is created (default the OS temp directory). */
  outputRoot?: string;
  /**
   * Background shells that ended an agent keeps (default 32, a whole number of at least 1):
   * past it the longest ended are pruned with their output files, those whose output was read
   * since they ended first. Running shells are never pruned.
   */
  maxFinishedShells?: number;
}

/** The `data` of a Bash result (for programs and UIs; the model never sees it). */
export interface BashResultData {
  /** How the command ended (foreground calls). */
  outcome?: ShellOutcome;
  /** Bytes of output the command wrote. */
  outputBytes?: number;
  /** Whether the output was cut for the model. */
  truncated?: boolean;
  /** The shell id (background calls). */
  shellId?: string;
  /** The output file (background calls; removed when the agent closes). */
  outputPath?: string;
}

function describeTool(maxOutputChars: number): string {
  return [
    'Runs a bash command and returns what it printed (stdout and stderr together, in order) and its exit code.',
    '',
    "- Each call starts a fresh /bin/bash in the agent's working directory: `cd` and variables do not carry over to the next call (use absolute paths, or `cd dir && cmd`).",
    `- The command is ended after \`timeout\` milliseconds (default 120000, at most ${BASH_MAX_TIMEOUT_MS}).`,
    `- Output longer than ${maxOutputChars} characters is cut in the middle; redirect large output to a file and read parts of it.`,
    '- When the command returns, anything it left running (`cmd &`, nohup, setsid) is ended. For servers, watchers and other long jobs pass run_in_background: true; then read the output with TaskOutput and stop it with TaskStop. Background commands are ended when the agent ends.',
    '- Prefer the Read, Edit, Write, Glob and Grep tools over cat, sed, echo >, find and grep.',
  ].join('\n');
}

function isReadOnlyCommand(command: unknown): boolean {
  if (typeof command !== 'string') return false;
  try {
    return analyzeShellCommand(command).readOnly;
  } catch {
    return false;
  }
}

function checkPositive(
  name: string,
  value: number | undefined,
  fallback: number,
  maximum = Infinity,
): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0 || value > maximum) {
    throw new ToolError(
      `createBashTool: ${name} must be a positive number${maximum === Infinity ? '' : ` of at most ${maximum}`}; got ${String(value)}.`,
      'INVALID_OPTIONS',
    );
  }
  return value;
}

async function checkWorkingDirectory(cwd: string): Promise<void> {
  const problem = await stat(cwd).then(
    (stats) => (stats.isDirectory() ? undefined : 'is not a directory'),
    (error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? 'does not exist' : error.message),
  );
  if (problem) {
    throw new ToolError(
      `Bash cannot run: the agent's working directory ${cwd} ${problem}. Recreate it or start the agent in an existing directory.`,
      'BASH_CWD_MISSING',
      { cwd },
    );
  }
}

const END_NOTES: Record<
  Exclude<ShellEnd, 'exited'>,
  (detail: { timeoutMs: number; maxBytes: number }) => string
> = {
  'timed-out': ({ timeoutMs }) =>
    `Timed out after ${timeoutMs} ms: the command and everything it started were ended. Pass a larger timeout (at most ${BASH_MAX_TIMEOUT_MS}) or run_in_background: true.`,
  aborted: () =>
    'Interrupted: the turn was aborted, so the command and everything it started were ended.',
  killed: () => 'Killed: the command was stopped before it finished.',
  'output-limit': ({ maxBytes }) =>
    `Stopped: the output passed ${maxBytes} bytes, so the command was ended. Redirect large output to a file and read parts of it.`,
};

/** Builds the model-facing text of a finished foreground call. */
function describeOutcome(
  output: string,
  outcome: ShellOutcome,
  detail: { timeoutMs: number; maxBytes: number },
): string {
  const parts = [output.length > 0 ? output : '(no output)'];
  if (outcome.end !== 'exited') parts.push(END_NOTES[outcome.end](detail));
  else if (outcome.signal) parts.push(`The shell was ended by ${outcome.signal}.`);
  else if (outcome.exitCode !== 0) parts.push(`Exit code ${outcome.exitCode}`);
  if (outcome.end === 'exited' && outcome.leftoversEnded > 0) {
    parts.push(
      `Note: the command left ${outcome.leftoversEnded} process(es) running when it returned; muster ended them. ` +
        'For servers and other long jobs use run_in_background: true.',
    );
  }
  return parts.join('\n');
}

/** The Bash tool (Claude Code 2.1.45's name and input schema). */
export function createBashTool(options: BashToolOptions = {}): Tool<BashInput> {
  const defaultTimeoutMs = checkPositive(
    'defaultTimeoutMs',
    options.defaultTimeoutMs,
    120_000,
    BASH_MAX_TIMEOUT_MS,
  );
  const maxOutputChars = checkPositive('maxOutputChars', options.maxOutputChars, 30_000);
  const killGraceMs = checkPositive('killGraceMs', options.killGraceMs, 1_000);
  const maxOutputFileBytes = checkPositive(
    'maxOutputFileBytes',
    options.maxOutputFileBytes,
    64 * 1024 * 1024,
  );

  const maxFinishedShells = options.maxFinishedShells ?? DEFAULT_MAX_FINISHED_SHELLS;
  if (!Number.isInteger(maxFinishedShells) || maxFinishedShells < 1) {
    throw new ToolError(
      `createBashTool: maxFinishedShells must be a whole number of at least 1; got ${String(options.maxFinishedShells)}.`,
      'INVALID_OPTIONS',
    );
  }

  async function runInBackground(input: BashInput, context: ToolContext): Promise<ToolResult> {
    const registry = shellRegistry(context);
    const id = `bash-${registry.nextNumber++}`;
    const outputPath = await newOutputPath(context, options.outputRoot, id);
    const run = startShell({
      command: input.command,
      cwd: context.cwd,
      environment: scrubEnvironment(context.environment),
      outputPath,
      killGraceMs,
      maxOutputBytes: maxOutputFileBytes,
      onOutputLimit: 'discard',
    });
    registerBackgroundShell(context, run, {
      id,
      command: input.command,
      ...(input.description === undefined ? {} : { description: input.description }),
      outputPath,
      maxFinishedShells,
    });
    const data: BashResultData = { shellId: id, outputPath };
    return {
      content:
        `Command running in the background with id ${id}. Read its output with TaskOutput (task_id "${id}") ` +
        'and stop it with TaskStop; it is ended when this agent ends.',
      data,
    };
  }

  async function runInForeground(input: BashInput, context: ToolContext): Promise<ToolResult> {
    const registry = shellRegistry(context);
    const outputPath = await newOutputPath(
      context,
      options.outputRoot,
      `call-${registry.nextCallNumber++}`,
    );
    const timeoutMs = Math.ceil(input.timeout ?? defaultTimeoutMs);
    const run = startShell({
      command: input.command,
      cwd: context.cwd,
      environment: scrubEnvironment(context.environment),
      outputPath,
      timeoutMs,
      signal: context.signal,
      killGraceMs,
      maxOutputBytes: maxOutputFileBytes,
    });
    // Belt and braces: if the agent closes without aborting the turn, the command still dies.
    const unregister = context.onAgentClose(async () => {
      await run.stop();
    });
    try {
      const outcome = await run.outcome;
      // The agent may have closed meanwhile and removed its output directory.
      const read = await readCappedOutput(outputPath, maxOutputChars).catch(
        (error: NodeJS.ErrnoException) => {
          if (error.code === 'ENOENT') return { text: '', bytes: 0, truncated: false, endByte: 0 };
          throw error;
        },
      );
      const data: BashResultData = { outcome, outputBytes: read.bytes, truncated: read.truncated };
      return {
        content: describeOutcome(read.text, outcome, { timeoutMs, maxBytes: maxOutputFileBytes }),
        isError: outcome.end !== 'exited' || outcome.exitCode !== 0,
        data,
      };
    } finally {
      unregister();
      await unlink(outputPath).catch(() => undefined);
    }
  }

  return {
    name: 'Bash',
    description: describeTool(maxOutputChars),
    inputSchema: BashInputSchema,
    inputJsonSchema: BASH_INPUT_JSON_SCHEMA,
    // @muster/permissions reads the line like a shell would: only a line whose every command
    // only reads (and that it could read whole) counts; such calls may also run in parallel.
    isReadOnly: (input) => isReadOnlyCommand(input.command),
    isConcurrencySafe: (input) => isReadOnlyCommand(input.command),
    async call(input, context) {
      const parsed = BashInputSchema.safeParse(input);
      if (!parsed.success) {
        const issues = parsed.error.issues.map(
          (issue) => `${issue.path.join('.') || 'input'}: ${issue.message}`,
        );
        throw new ToolError(`Bash input is invalid: ${issues.join('; ')}.`, 'INVALID_INPUT');
      }
      if (context.signal.aborted) {
        throw new ToolError(
          'Bash did not run the command: the turn was already aborted.',
          'ABORTED',
        );
      }
      await checkWorkingDirectory(context.cwd);
      return parsed.data.run_in_background
        ? runInBackground(parsed.data, context)
        : runInForeground(parsed.data, context);
    },
  };
}
