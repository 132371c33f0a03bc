import { renderToString } from 'ink';
import type { TerminalStyle } from '../terminal-style.js';
import { Dashboard } from './dashboard.js';
import type { DashboardModel } from './dashboard-model.js';

/**
 * One frame of the dashboard as text (for `--once` and output that is not a terminal):
 * every member and task, the newest messages; no keyboard, no spinner.
 */
export function renderFrame(
  model: DashboardModel,
  style: TerminalStyle,
  options: { columns: number; feedLimit?: number; status?: string },
): string {
  return renderToString(
    <Dashboard
      model={model}
      style={style}
      interactive={false}
      columns={options.columns}
      feedLimit={options.feedLimit ?? 20}
      {...(options.status ? { status: options.status } : {})}
    />,
    { columns: options.columns },
  );
}
