// Where a member's pane goes (R20): beside the lead in the lead's window (main-vertical, lead
// 30 % on the left, members stacked on the right), or tiled in a private server's session.
// When a window has no room for one more readable pane, the member opens in a new window and
// the caller gets a notice to show. The layout is re-applied after every spawn and every kill,
// because tmux layouts are not sticky.
import { TmuxCommandError, type TmuxCommandRunner } from './tmux-runner.js';

/** The smallest pane muster will make for a member. */
export interface TmuxPaneSize {
  columns: number;
  rows: number;
}

/** Options of {@link TmuxPlacement}. */
export interface TmuxPlacementOptions {
  /** The lead's pane (lead inside tmux): members go into its window, right of it. */
  leadPaneId?: string;
  /** Private server: the session holding the members (created at the first spawn). */
  sessionName: string;
  /** Size of that session's windows while no client is attached (default 200×50). */
  sessionSize?: TmuxPaneSize;
  /** Below this, a pane does not fit and a new window opens (default 20 columns × 4 rows). */
  minimumPaneSize?: TmuxPaneSize;
  /** The lead's share of its window's width, in percent (default 30). */
  leadPercent?: number;
}

/** Where a new pane landed. */
export interface TmuxPlacementResult {
  paneId: string;
  windowId: string;
  /** Set when the pane could not go where it normally would (shown to the user). */
  notice?: string;
}

interface PlacementWindow {
  windowId: string;
  hasLead: boolean;
}

interface WindowState {
  window: PlacementWindow;
  panes: string[];
  size: TmuxPaneSize;
}

const CREATED_FORMAT = '#{pane_id} #{window_id}';

/** Decides where member panes go and keeps the layout tidy. Calls must be serialized by the caller. */
export class TmuxPlacement {
  readonly #runner: TmuxCommandRunner;
  readonly #options: TmuxPlacementOptions;
  readonly #windows: PlacementWindow[] = [];
  /** Panes this placement made (pane ids only grow within a server, so none is reused). */
  readonly #created = new Set<string>();

  constructor(runner: TmuxCommandRunner, options: TmuxPlacementOptions) {
    this.#runner = runner;
    this.#options = options;
  }

  /** Creates a pane running `argv` (a placeholder the caller then replaces) in the right place. */
  async createPane(argv: readonly string[], label: string): Promise<TmuxPlacementResult> {
    const current = await this.#currentWindow();
    if (current === undefined) return this.#newWindow(argv);
    const { window, panes, size } = current;
    // Every pane but the lead's takes room in the stack, but only muster's own are split.
    const stacked = window.hasLead
      ? panes.filter((pane) => pane !== this.#options.leadPaneId)
      : panes;
    const members = panes.filter((pane) => this.#created.has(pane));
    if (!this.#fits(window, stacked.length + 1, size)) {
      return this.#overflow(
        argv,
        label,
        window,
        `it has no room for another pane of at least ${this.#describeMinimum()}`,
      );
    }
    const target = members.at(-1) ?? this.#options.leadPaneId ?? panes.at(-1);
    const direction =
      window.hasLead && members.length === 0
        ? ['-h', '-l', `${100 - this.#leadPercent()}%`]
        : ['-v'];
    try {
      const output = await this.#runner.run([
        'split-window',
        '-d',
        ...direction,
        '-t',
        String(target),
        '-P',
        '-F',
        CREATED_FORMAT,
        '--',
        ...argv,
      ]);
      return this.#track(parseCreated(output));
    } catch (error) {
      if (error instanceof TmuxCommandError && error.noSpace) {
        return this.#overflow(argv, label, window, `tmux said: ${error.stderr.trim()}`);
      }
      throw error;
    }
  }

  /** The tmux commands that re-apply a window's layout (to run alone or after a spawn's own). */
  layoutCommands(windowId: string): string[][] {
    const window = this.#windows.find((candidate) => candidate.windowId === windowId);
    return window?.hasLead
      ? [
          ['set-option', '-w', '-t', windowId, 'main-pane-width', `${this.#leadPercent()}%`],
          ['select-layout', '-t', windowId, 'main-vertical'],
        ]
      : [['select-layout', '-t', windowId, 'tiled']];
  }

  /** Re-applies the layout of a window (after a kill); a vanished window is fine. */
  async relayout(windowId: string): Promise<void> {
    await this.#runner.runSequence(this.layoutCommands(windowId)).catch((error: unknown) => {
      if (!(error instanceof TmuxCommandError && (error.targetMissing || error.serverMissing)))
        throw error;
    });
  }

  async #currentWindow(): Promise<WindowState | undefined> {
    while (this.#windows.length > 0) {
      const window = this.#windows.at(-1) as PlacementWindow;
      const state = await this.#inspect(window).catch(() => undefined);
      if (state !== undefined) return state;
      this.#windows.pop();
    }
    if (this.#options.leadPaneId === undefined) return undefined;
    const output = await this.#runner.run([
      'display-message',
      '-p',
      '-t',
      this.#options.leadPaneId,
      '#{window_id}',
    ]);
    const window = { windowId: output.trim(), hasLead: true };
    this.#windows.push(window);
    return this.#inspect(window);
  }

  /** One call: the window's panes (in order) and its size. */
  async #inspect(window: PlacementWindow): Promise<WindowState> {
    const output = await this.#runner.run([
      'list-panes',
      '-t',
      window.windowId,
      '-F',
      '#{pane_id} #{window_width} #{window_height}',
    ]);
    const lines = output
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => line.split(' '));
    const [, columns, rows] = lines[0] ?? [];
    return {
      window,
      panes: lines.map(([paneId]) => paneId as string),
      size: { columns: Number(columns ?? 0), rows: Number(rows ?? 0) },
    };
  }

  #fits(window: PlacementWindow, memberCount: number, size: TmuxPaneSize): boolean {
    const minimum = this.#minimum();
    if (window.hasLead) {
      const memberColumns =
        size.columns - Math.round((size.columns * this.#leadPercent()) / 100) - 1;
      return (
        memberColumns >= minimum.columns &&
        memberCount * minimum.rows + (memberCount - 1) <= size.rows
      );
    }
    const columns = Math.ceil(Math.sqrt(memberCount));
    const rows = Math.ceil(memberCount / columns);
    const cellColumns = Math.floor((size.columns - (columns - 1)) / columns);
    const cellRows = Math.floor((size.rows - (rows - 1)) / rows);
    return cellColumns >= minimum.columns && cellRows >= minimum.rows;
  }

  async #overflow(
    argv: readonly string[],
    label: string,
    full: PlacementWindow,
    why: string,
  ): Promise<TmuxPlacementResult> {
    const created = await this.#newWindow(argv, full.windowId);
    created.notice =
      `${label} opened in a new tmux window ${created.windowId}: window ${full.windowId} ${why} ` +
      `(switch with \`tmux select-window -t ${created.windowId}\`).`;
    return created;
  }

  async #newWindow(argv: readonly string[], after?: string): Promise<TmuxPlacementResult> {
    let output: string;
    if (after !== undefined) {
      output = await this.#runner.run([
        'new-window',
        '-d',
        '-a',
        '-t',
        after,
        '-P',
        '-F',
        CREATED_FORMAT,
        '--',
        ...argv,
      ]);
    } else {
      const size = this.#options.sessionSize ?? { columns: 200, rows: 50 };
      output = await this.#runner.run([
        'new-session',
        '-d',
        '-s',
        this.#options.sessionName,
        '-x',
        String(size.columns),
        '-y',
        String(size.rows),
        '-P',
        '-F',
        CREATED_FORMAT,
        '--',
        ...argv,
      ]);
    }
    const created = this.#track(parseCreated(output));
    this.#windows.push({ windowId: created.windowId, hasLead: false });
    return created;
  }

  #track(created: TmuxPlacementResult): TmuxPlacementResult {
    this.#created.add(created.paneId);
    return created;
  }

  #leadPercent(): number {
    return this.#options.leadPercent ?? 30;
  }

  #minimum(): TmuxPaneSize {
    return this.#options.minimumPaneSize ?? { columns: 20, rows: 4 };
  }

  #describeMinimum(): string {
    const minimum = this.#minimum();
    return `${minimum.columns} columns × ${minimum.rows} rows`;
  }
}

function parseCreated(output: string): TmuxPlacementResult {
  const [paneId, windowId] = output.trim().split(' ');
  if (paneId === undefined || windowId === undefined || !paneId.startsWith('%')) {
    throw new TmuxCommandError(['split-window'], `unexpected answer: ${output.trim()}`, null);
  }
  return { paneId, windowId };
}
