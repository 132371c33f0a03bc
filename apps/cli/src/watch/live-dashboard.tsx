import { render, useStdout } from 'ink';
import { useEffect, useState } from 'react';
import { symbol, type TerminalStyle } from '../terminal-style.js';
import { Dashboard } from './dashboard.js';
import { buildDashboardModel, type DashboardModel } from './dashboard-model.js';
import { loadTeamSnapshot } from './load-team-snapshot.js';
import { clockTime } from './clock-time.js';
import { watchTeamFolders } from './watch-team-folders.js';

interface LiveDashboardProps {
  root: string;
  team: string;
  style: TerminalStyle;
  initial: DashboardModel;
}

function LiveDashboard(props: LiveDashboardProps) {
  const { root, team } = props;
  const [model, setModel] = useState(props.initial);
  const [status, setStatus] = useState(`watching ${root}`);
  const { stdout } = useStdout();
  const [size, setSize] = useState({ rows: stdout.rows, columns: stdout.columns });

  useEffect(() => {
    const onResize = () => setSize({ rows: stdout.rows, columns: stdout.columns });
    stdout.on('resize', onResize);
    return () => {
      stdout.off('resize', onResize);
    };
  }, [stdout]);

  useEffect(() => {
    let loading = false;
    let again = false;
    let stopped = false;
    const reload = async () => {
      if (loading) {
        again = true;
        return;
      }
      loading = true;
      try {
        do {
          again = false;
          try {
            const next = buildDashboardModel(await loadTeamSnapshot(root, team));
            if (stopped) return;
            setModel(next);
            setStatus(
              `watching ${root} ${symbol(props.style, 'separator')} updated ${clockTime(new Date().toISOString())}`,
            );
          } catch (error) {
            if (!stopped) setStatus(`cannot read the team: ${(error as Error).message}`);
          }
        } while (again && !stopped);
      } finally {
        loading = false;
      }
    };
    const watcher = watchTeamFolders(root, team, () => void reload());
    // Anything that changed between the first read and the watch starting.
    void reload();
    return () => {
      stopped = true;
      watcher.close();
    };
  }, [root, team, props.style]);

  return (
    <Dashboard
      model={model}
      style={props.style}
      interactive
      rows={size.rows}
      columns={size.columns}
      status={status}
    />
  );
}

/**
 * Draws the live dashboard until the user presses q (or Ctrl+C). Redraws as soon as the
 * team's folders change on disk. Never writes to the team's files.
 */
export async function runLiveDashboard(options: LiveDashboardProps): Promise<void> {
  const instance = render(<LiveDashboard {...options} />, { exitOnCtrlC: true });
  await instance.waitUntilExit();
}
