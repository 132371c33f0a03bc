// Starts the interactive app without loading ink or react before it is needed (start-up time:
// `muster run -p` and `--help` never load them), and lets it draw under CI as well.
import type { InteractiveRunRequest } from './run-interactive.js';

/**
 * Loads and runs the interactive app. ink decides once, when it is first loaded, whether it runs
 * under CI (`CI` or `CONTINUOUS_INTEGRATION` set); there it draws nothing until it exits. The app
 * only starts on a terminal, where a person is looking, so the markers are dropped from this
 * process before ink loads; the team's tools and teammates still get the environment as it was.
 */
export async function startInteractive(
  request: Omit<InteractiveRunRequest, 'environment'>,
): Promise<number> {
  const environment = { ...process.env };
  delete process.env.CI;
  delete process.env.CONTINUOUS_INTEGRATION;
  const { runInteractive } = await import('./run-interactive.js');
  return runInteractive({ ...request, environment });
}
