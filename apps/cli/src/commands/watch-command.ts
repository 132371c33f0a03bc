import { printJson, printLine, type CommandContext } from '../context.js';
import { buildDashboardModel } from '../watch/dashboard-model.js';
import { loadTeamSnapshot } from '../watch/load-team-snapshot.js';
import { resolveTeam } from './resolve-team.js';

/**
 * `muster watch [team] [--once]`: the live dashboard on a terminal; one plain frame with
 * `--once` or when stdout or stdin is not a terminal; the model as JSON with `--json`.
 */
export async function watchCommand(
  context: CommandContext,
  teamArgument: string | undefined,
  options: { once?: boolean },
) {
  const team = await resolveTeam(context, teamArgument);
  const model = buildDashboardModel(await loadTeamSnapshot(context.root, team));
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
  const { runLiveDashboard } = await import('../watch/live-dashboard.js');
  await runLiveDashboard({ root: context.root, team, style: context.style, initial: model });
}
