import { render, useStdout } from 'ink';
import { useEffect, useState } from 'react';
import { symbol, type TerminalStyle } from '../terminal-style.js';
import { Dashboard } from './dashboard.js';
import { followInboxes } from '@muster/mailbox';
import { buildDashboardModel, type DashboardModel, type TeamSnapshot } from './dashboard-model.js';
import { clockTime } from './clock-time.js';
import { watchTeamFolders } from './watch-team-folders.js';

interface LiveDashboardProps {
  root: string;
  team: string;
  style: TerminalStyle;
  initial: DashboardModel;
  /** Reads the team again (a team's files, or an ended session's task list and history). */
  load: () => Promise<TeamSnapshot>;
  /**
   * Follow the team's inboxes folder and record every entry to muster's history while the
   * dashboard runs (Claude Code 2.1.330 removes entries within a second of delivering them).
   */
  followHistory: boolean;
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
            const next = buildDashboardModel(await props.load());
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
    const following = new AbortController();
    if (props.followHistory) {
      // Every entry seen is recorded as it lands; the feed is redrawn from the history.
      followInboxes({
        root,
        team,
        signal: following.signal,
        onEntry: () => void reload(),
        onNotice: (notice) => {
          if (notice.kind === 'polling' || notice.kind === 'unreadable-inbox') {
            setStatus(`history: ${notice.message}`);
          }
        },
      }).then(
        (follower) =>
          follower.stopped.catch((error: unknown) => {
            if (!stopped) setStatus(`history recording stopped: ${(error as Error).message}`);
          }),
        (error: unknown) => {
          if (!stopped) setStatus(`history is not recorded: ${(error as Error).message}`);
        },
      );
    }
    // Anything that changed between the first read and the watch starting.
    void reload();
    return () => {
      stopped = true;
      following.abort();
      watcher.close();
    };
  }, [root, team, props.style, props.load, props.followHistory]);

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
