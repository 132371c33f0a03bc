// One headless team run, shared by `muster run -p` and `muster demo --run -p`: a thin
// composition of `createTeamRuntime` (@muster/agents) with `askPolicy: 'headless'`, the flags,
// the output and the process's signals. All coordination is the runtime's.
import {
  createTeamRuntime,
  type RunOutcome,
  type TeamRuntime,
  type TeamRuntimeOptions,
} from '@muster/agents';
import { handleSignalsInHost } from '@muster/backends';
import { parsePermissionRule } from '@muster/permissions';
import { MusterError } from '@muster/protocol';
import type { ModelClient } from '@muster/query';
import { CliError } from '../cli-error.js';
import type { CommandContext } from '../context.js';
import { EXIT_FAILURE, EXIT_STOPPED } from '../exit-codes.js';
import type { HeadlessFlags } from './headless-flags.js';
import { createHeadlessOutput } from './headless-output.js';

/** What one headless run needs besides the flags. */
export interface HeadlessRunRequest {
  context: CommandContext;
  prompt: string;
  flags: HeadlessFlags;
  /** The lead's working directory (absolute, checked). */
  cwd: string;
  /** The muster root the team lives under (absolute). */
  root: string;
  client: ModelClient;
  /** Where agent definitions, hooks and settings are read from (default: the user's home). */
  homeDirectory?: string;
  /** The replies come from @muster/scripted-model's demo script: say so on every line. */
  scriptedDemo?: boolean;
  /**
   * The model credentials process teammates (pty, tmux, iTerm2) get: `ANTHROPIC_API_KEY` or
   * `ANTHROPIC_AUTH_TOKEN`, `ANTHROPIC_BASE_URL`. Default: the runtime picks them from the environment.
   */
  modelEnvironment?: Record<string, string>;
  /** Where teammates run, when not `flags.teammateMode` (the demo chooses per teammate). */
  teammateMode?: TeamRuntimeOptions['teammateMode'];
}

/** How long teammates have to stop after SIGINT/SIGTERM before they are ended. */
const SIGNAL_SHUTDOWN_DEADLINE_MS = 2_000;

/** Checks every rule of `--allowed-tools` / `--disallowed-tools`; a malformed one is a usage error naming the flag. */
export function checkPermissionRules(flags: HeadlessFlags): { allow: string[]; deny: string[] } {
  const check = (option: string, rules: string[] | undefined) => {
    for (const rule of rules ?? []) {
      try {
        parsePermissionRule(rule);
      } catch (error) {
        throw new CliError({
          code: 'USAGE',
          message: `${option}: ${error instanceof Error ? error.message : String(error)}`,
          details: { option, rule },
        });
      }
    }
    return [...(rules ?? [])];
  };
  return {
    allow: check('--allowed-tools', flags.allowedTools),
    deny: check('--disallowed-tools', flags.disallowedTools),
  };
}

/** The exit code of a run's status. */
export function exitCodeOfStatus(status: RunOutcome['status']): number {
  if (status === 'completed') return 0;
  if (status === 'failed') return EXIT_FAILURE;
  return EXIT_STOPPED;
}

/**
 * Runs the team headless until the lead has finished and its teammates have shut down, the
 * timeout passes, or SIGINT/SIGTERM arrives (the team is asked to stop, then ended; a second
 * signal ends it at once). Returns the exit code; nothing of the team runs afterwards.
 */
export async function runTeamHeadless(request: HeadlessRunRequest): Promise<number> {
  const { context, flags } = request;
  const rules = checkPermissionRules(flags);
  const output = createHeadlessOutput({
    format: flags.outputFormat,
    streams: context.streams,
    ...(request.scriptedDemo === true ? { scriptedDemo: true } : {}),
  });
  const runtime: TeamRuntime = await createTeamRuntime({
    cwd: request.cwd,
    root: request.root,
    client: request.client,
    model: flags.model,
    permissionMode: flags.permissionMode,
    permissionRules: rules,
    askPolicy: 'headless',
    teammateMode: request.teammateMode ?? flags.teammateMode,
    ...(request.modelEnvironment === undefined
      ? {}
      : { modelEnvironment: request.modelEnvironment }),
    ...(flags.maxTurns === undefined ? {} : { maxTurns: flags.maxTurns }),
    ...(request.homeDirectory === undefined ? {} : { homeDirectory: request.homeDirectory }),
    onEvent: (event) => output.onEvent(event),
  });

  // This command shuts the team down on SIGINT/SIGTERM itself (gracefully first): the backends'
  // cleanup registry, which would end the process at once, leaves the signals to it meanwhile.
  const releaseSignals = handleSignalsInHost();
  const stop = new AbortController();
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    signals += 1;
    if (signals === 1) {
      context.streams.stderr.write(
        `muster: ${signal}: asking the team to shut down (up to ${SIGNAL_SHUTDOWN_DEADLINE_MS / 1000} s, then it is ended); send it again to end everything now.\n`,
      );
      stop.abort();
    } else {
      context.streams.stderr.write(`muster: ${signal} again: ending the team now.\n`);
      void runtime.close();
    }
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let outcome: RunOutcome;
  try {
    outcome = await runtime.run(request.prompt, {
      ...(flags.timeout === undefined ? {} : { timeoutMs: flags.timeout }),
      signal: stop.signal,
    });
  } catch (error) {
    await runtime.close();
    releaseSignals();
    throw MusterError.isInstance(error)
      ? error
      : new CliError({
          code: 'REFUSED',
          message: `The team run failed: ${error instanceof Error ? error.message : String(error)}`,
          cause: error,
        });
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  const team = runtime.teamName();
  await runtime.close();
  releaseSignals();
  const exitCode = exitCodeOfStatus(outcome.status);
  output.finish({
    status: outcome.status,
    exitCode,
    text: outcome.text,
    turns: outcome.turns,
    ...(team === undefined ? {} : { team }),
    shutdown: outcome.shutdown,
    ...(outcome.error === undefined ? {} : { error: outcome.error }),
  });
  if (flags.outputFormat === 'text' && outcome.status !== 'completed') {
    const why =
      outcome.status === 'timeout'
        ? `the --timeout of ${(flags.timeout ?? 0) / 1000} s passed`
        : outcome.status === 'aborted'
          ? 'a signal stopped it'
          : `a lead turn failed: ${outcome.error?.message ?? 'no reason given'}`;
    const ended = [...outcome.shutdown.approved, ...outcome.shutdown.killed];
    context.streams.stderr.write(
      `muster: the run did not finish (${outcome.status}): ${why}.${ended.length === 0 ? '' : ` Teammates shut down: ${outcome.shutdown.approved.join(', ') || 'none'}; ended: ${outcome.shutdown.killed.join(', ') || 'none'}.`}\n`,
    );
  }
  return exitCode;
}
