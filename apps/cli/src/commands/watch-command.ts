import { printJson, printLine, type CommandContext } from '../context.js';
import { buildDashboardModel } from '../watch/dashboard-model.js';
import { loadTeamSnapshot } from '../watch/load-team-snapshot.js';
import { loadEndedSessionSnapshot } from '../session/ended-sessions.js';
import { escapeTerminalText } from '../terminal-text.js';
import { resolveTeamOrEndedSession } from './resolve-team.js';

/**
 * `muster watch [team] [--once]`: the live dashboard on a terminal; one plain frame with
 * `--once` or when stdout or stdin is not a terminal; the model as JSON with `--json`.
 */
export async function watchCommand(
  context: CommandContext,
  teamArgument: string | undefined,
  options: { once?: boolean },
) {
  const { team, ended, note } = await resolveTeamOrEndedSession(context, teamArgument);
  const { root } = context;
  // After /exit only the task list and muster's recorded history are left to show.
  const load = ended
    ? () => loadEndedSessionSnapshot(root, team)
    : () => loadTeamSnapshot(root, team);
  if (note !== undefined) context.streams.stderr.write(`${escapeTerminalText(note)}\n`);
  const model = buildDashboardModel(await load());
  if (context.json) {
    printJson(context, model);
    return;
  }
  const interactive =
    options.once !== true && context.streams.stdout.isTTY === true && process.stdin.isTTY === true;
  if (!interactive) {
    const { renderFrame } = await import('../watch/render-frame.js');
    const columns = context.streams.stdout.isTTY ? (context.streams.stdout.columns ?? 100) : 120;
    printLine(context, renderFrame(model, context.style, { columns }));
    return;
  }
  drawLiveEvenUnderCi();
  const { runLiveDashboard } = await import('../watch/live-dashboard.js');
  await runLiveDashboard({
    root,
    team,
    style: context.style,
    initial: model,
    load,
    followHistory: !ended,
  });
}

/**
 * ink decides once, when it is first loaded, whether it runs under CI (`CI` or
 * `CONTINUOUS_INTEGRATION` set to anything but `0` / `false`); there it draws nothing until
 * it exits. The live dashboard only starts on a terminal, where a person is looking, so the
 * marker is dropped from this process before ink loads. muster starts no child processes
 * from `watch`, so nothing else sees the change.
 */
function drawLiveEvenUnderCi() {
  delete process.env.CI;
  delete process.env.CONTINUOUS_INTEGRATION;
}
