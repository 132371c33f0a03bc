// One interactive team session, shared by `muster run [prompt]` and `muster demo --run`: a thin
// composition of `createTeamRuntime` (@muster/agents) with a person answering asks and plans,
// the ink app, and the process's signals. Loaded only when an interactive command runs.
import { render } from 'ink';
import { createTeamRuntime, type TeamRuntimeOptions } from '@muster/agents';
import {
  createInProcessBackend,
  createITermBackend,
  createPtyBackend,
  createTmuxBackend,
  handleSignalsInHost,
} from '@muster/backends';
import type { ModelClient } from '@muster/query';
import type { CommandContext } from '../context.js';
import { EXIT_STOPPED } from '../exit-codes.js';
import type { HeadlessFlags } from '../run/headless-flags.js';
import { checkPermissionRules } from '../run/headless-run.js';
import { InteractiveApp } from './interactive-app.js';
import { createSessionEnding } from './session-ending.js';
import { initialSessionModel } from './session-model.js';

/** How long teammates have to stop after the first Ctrl-C before they are ended. */
export const INTERACTIVE_SHUTDOWN_DEADLINE_MS = 10_000;

/**
 * Inside tmux, the lead pane's share of the window when pane teammates split it: the app draws
 * the whole team there, so it keeps more than Claude Code's 30 %.
 */
export const INTERACTIVE_LEAD_PANE_PERCENT = 60;

/** What one interactive session needs. */
export interface InteractiveRunRequest {
  context: CommandContext;
  flags: HeadlessFlags;
  cwd: string;
  root: string;
  client: ModelClient;
  /** Sent to the lead at once. */
  prompt?: string;
  /** Put on the prompt line for the person to send (the demo's prompt). */
  initialInput?: string;
  homeDirectory?: string;
  /** The replies come from @muster/scripted-model: every screen says so. */
  scriptedDemo?: boolean;
  modelEnvironment?: Record<string, string>;
  /** The environment tools and teammates start from (default `process.env`). */
  environment?: Readonly<Record<string, string | undefined>>;
  /** Where teammates run, when it is not `flags.teammateMode` (a choice per teammate). */
  teammateMode?: TeamRuntimeOptions['teammateMode'];
  /** How long teammates get to stop after Ctrl-C (default {@link INTERACTIVE_SHUTDOWN_DEADLINE_MS}). */
  shutdownDeadlineMs?: number;
}

/**
 * Runs the interactive app until the person presses Ctrl-C (or SIGINT/SIGTERM arrives): the
 * team is asked to shut down, the rest ended at the deadline (at once on a second Ctrl-C), and
 * the runtime closed, so nothing of the team runs afterwards. Returns the exit code.
 */
export async function runInteractive(request: InteractiveRunRequest): Promise<number> {
  const { context, flags } = request;
  const rules = checkPermissionRules(flags);
  const environment = request.environment ?? process.env;
  const runtime = await createTeamRuntime({
    cwd: request.cwd,
    root: request.root,
    client: request.client,
    model: flags.model,
    permissionMode: flags.permissionMode,
    permissionRules: rules,
    askPolicy: 'person',
    planApproval: 'person',
    teammateMode: request.teammateMode ?? flags.teammateMode,
    environment,
    // The runtime's own list, but pane teammates leave the app more of the lead's window.
    backends: [
      createInProcessBackend(),
      createPtyBackend({ environment }),
      createTmuxBackend({
        environment: { ...environment },
        leadPercent: INTERACTIVE_LEAD_PANE_PERCENT,
      }),
      createITermBackend({ environment: { ...environment } }),
    ],
    ...(request.modelEnvironment === undefined
      ? {}
      : { modelEnvironment: request.modelEnvironment }),
    ...(flags.maxTurns === undefined ? {} : { maxTurns: flags.maxTurns }),
    ...(request.homeDirectory === undefined ? {} : { homeDirectory: request.homeDirectory }),
  });
  // The team the session led, named at its end even when the lead deleted it (TeamDelete).
  let ledTeam: string | undefined;
  let teamDeleted = false;
  runtime.subscribe(() => {
    const now = runtime.teamName();
    if (now !== undefined) ledTeam = now;
    teamDeleted = ledTeam !== undefined && now === undefined;
  });
  // This command shuts the team down on SIGINT/SIGTERM itself (gracefully first).
  const releaseSignals = handleSignalsInHost();
  const ending = createSessionEnding({
    runtime,
    deadlineMs: request.shutdownDeadlineMs ?? INTERACTIVE_SHUTDOWN_DEADLINE_MS,
  });
  const onSignal = (signal: NodeJS.Signals) => ending.stop(signal);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let timeout: NodeJS.Timeout | undefined;
  if (flags.timeout !== undefined) {
    timeout = setTimeout(() => ending.stop('--timeout'), flags.timeout);
  }
  const instance = render(
    <InteractiveApp
      runtime={runtime}
      ending={ending}
      style={context.style}
      initialModel={initialSessionModel({
        scriptedDemo: request.scriptedDemo === true,
        model: flags.model,
        permissionMode: flags.permissionMode,
      })}
      {...(request.prompt === undefined ? {} : { initialPrompt: request.prompt })}
      {...(request.initialInput === undefined ? {} : { initialInput: request.initialInput })}
    />,
    { exitOnCtrlC: false },
  );
  // Should the app end on its own (a drawing error), the team is ended with it.
  void instance.waitUntilExit().then(
    () => {
      ending.stop('the app ended');
      ending.stop('the app ended');
    },
    (error: unknown) => {
      context.streams.stderr.write(
        `muster: the interactive app failed: ${error instanceof Error ? error.message : String(error)}; ending the team.\n`,
      );
      ending.stop('the app failed');
      ending.stop('the app failed');
    },
  );
  try {
    const outcome = await ending.done;
    instance.unmount();
    await instance.waitUntilExit().catch(() => undefined);
    const team = runtime.teamName() ?? ledTeam;
    const deleted = runtime.teamName() === undefined && teamDeleted ? ' (deleted by the lead)' : '';
    const report = outcome.report;
    const demo = request.scriptedDemo === true ? ' [scripted demo]' : '';
    const summary =
      outcome.forced || report === undefined
        ? 'everything was ended at once'
        : `shut down: ${report.approved.join(', ') || 'none'}; ended at the deadline: ${report.killed.join(', ') || 'none'}`;
    context.streams.stderr.write(
      `muster: session ended (${outcome.trigger})${team === undefined ? '' : ` for team ${team}${deleted}`}: ${summary}.${demo}\n`,
    );
    return outcome.trigger === 'Ctrl-C' ? 0 : EXIT_STOPPED;
  } finally {
    if (timeout !== undefined) clearTimeout(timeout);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await runtime.close();
    releaseSignals();
  }
}
