// Where the offline demo's teammates run. `--teammate-mode auto` (the demo's default) shows
// both kinds of backend: alice and bob in-process, carol in a pane (a tmux pane when the lead
// runs inside tmux, else a PTY); an explicit mode puts every teammate there.
import type { TeamRuntimeOptions } from '@muster/agents';
import { DEMO_REVIEWER, DEMO_TEAMMATES } from '@muster/scripted-model';
import type { HeadlessFlags } from './headless-flags.js';

/** The backend carol gets under `auto`: `tmux` inside tmux (`TMUX` set), else `pty`. */
export function demoPaneBackend(
  environment: Readonly<Record<string, string | undefined>>,
): 'tmux' | 'pty' {
  return (environment.TMUX ?? '') !== '' ? 'tmux' : 'pty';
}

/**
 * The `teammateMode` the demo's team runtime gets for `--teammate-mode mode`: under `auto`, a
 * choice per teammate (carol in a pane, the others in-process); otherwise the mode itself.
 */
export function demoTeammateMode(
  mode: HeadlessFlags['teammateMode'],
  environment: Readonly<Record<string, string | undefined>>,
): NonNullable<TeamRuntimeOptions['teammateMode']> {
  if (mode !== 'auto') return mode;
  const pane = demoPaneBackend(environment);
  return ({ name }) => (name === DEMO_REVIEWER ? pane : 'in-process');
}

/** One line saying where each demo teammate runs, and how to change it. */
export function describeDemoTeammateModes(
  mode: HeadlessFlags['teammateMode'],
  environment: Readonly<Record<string, string | undefined>>,
): string {
  if (mode !== 'auto') {
    return `${DEMO_TEAMMATES.join(', ')}: ${mode} (--teammate-mode ${mode})`;
  }
  const pane = demoPaneBackend(environment);
  const others = DEMO_TEAMMATES.filter((name) => name !== DEMO_REVIEWER);
  return `${others.join(', ')}: in-process; ${DEMO_REVIEWER}: ${pane === 'tmux' ? 'tmux (a pane beside the lead, which runs inside tmux)' : 'pty'} (--teammate-mode auto; --teammate-mode in-process|pty|tmux puts every teammate there)`;
}
