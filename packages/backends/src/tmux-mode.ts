// How the tmux backend relates to the lead (inside tmux: split the lead's window; outside: a
// private server), and whether tmux can run here at all.
import { execFile } from 'node:child_process';
import { BackendError } from './backend-error.js';
import type { BackendAvailability } from './backend-types.js';
import type { TmuxServerAddress } from './tmux-runner.js';

/** What decides the mode: the options of the tmux backend that matter here. */
export interface TmuxModeOptions {
  socketName?: string;
  leadPane?: string;
  environment?: NodeJS.ProcessEnv;
}

/** How the lead and tmux relate, decided once at creation. */
export type TmuxMode =
  | { kind: 'inside'; address: TmuxServerAddress; leadPane: string }
  | { kind: 'private'; socketName?: string };

/** Inside tmux when `leadPane` is given or `TMUX` and `TMUX_PANE` are set; else a private server. */
export function decideMode(options: TmuxModeOptions): TmuxMode {
  const environment = options.environment ?? process.env;
  const tmuxVariable = environment.TMUX;
  const leadPane = options.leadPane ?? (tmuxVariable ? environment.TMUX_PANE : undefined);
  if (leadPane === undefined || leadPane === '') {
    return options.socketName === undefined
      ? { kind: 'private' }
      : { kind: 'private', socketName: options.socketName };
  }
  if (!/^%\d+$/.test(leadPane)) {
    throw new BackendError({
      code: 'INVALID_SPEC',
      message: `tmux backend: lead pane "${leadPane}" is not a pane id like %3. Pass TMUX_PANE as it was when the lead started.`,
    });
  }
  let address: TmuxServerAddress = { socketName: 'default' };
  if (options.socketName !== undefined) address = { socketName: options.socketName };
  else if (tmuxVariable) address = { socketPath: tmuxVariable.split(',')[0] as string };
  return { kind: 'inside', address, leadPane };
}

/** `muster-<team>` with only characters safe in a socket file name. */
export function privateSocketName(teamName: string): string {
  return `muster-${teamName.replace(/[^A-Za-z0-9_-]/g, '-')}`;
}

/** Reads `tmux -V`: its text and version numbers, or why tmux cannot run. */
export function readTmuxVersion(
  tmuxPath: string,
): Promise<{ text: string; major: number; minor: number } | { error: string }> {
  return new Promise((resolve) => {
    execFile(tmuxPath, ['-V'], { timeout: 5_000, encoding: 'utf8' }, (error, stdout) => {
      if (error !== null) {
        resolve({ error: error.message });
        return;
      }
      const match = /(\d+)\.(\d+)/.exec(stdout);
      resolve({
        text: stdout.trim(),
        major: Number(match?.[1] ?? 0),
        minor: Number(match?.[2] ?? 0),
      });
    });
  });
}

/** Whether tmux (3.0 or newer) runs here, and where members would go. */
export async function tmuxAvailability(
  tmuxPath: string,
  mode: TmuxMode,
): Promise<BackendAvailability> {
  const version = await readTmuxVersion(tmuxPath);
  if ('error' in version) {
    return {
      available: false,
      reason: `tmux cannot run (${tmuxPath}: ${version.error})`,
      fix: 'Install tmux 3.0 or newer (apt install tmux, brew install tmux), or pass tmuxPath.',
    };
  }
  if (version.major < 3) {
    return {
      available: false,
      reason: `${version.text} is too old: muster needs -e on split-window and respawn-pane (tmux 3.0)`,
      fix: 'Install tmux 3.0 or newer.',
    };
  }
  const where =
    mode.kind === 'inside'
      ? `members split the lead's window (pane ${mode.leadPane})`
      : `members run on a private server -L ${mode.socketName ?? 'muster-<team>'}`;
  return { available: true, notes: [`${version.text}: ${where}`] };
}
