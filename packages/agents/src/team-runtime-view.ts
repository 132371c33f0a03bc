// How a person can look at a teammate, by backend: an in-process teammate's conversation is
// in the team's `agent` events; a PTY teammate's screen is kept in a headless terminal by the
// pty backend; a tmux or iTerm2 teammate runs in a pane a person attaches to.
import type { MemberHandle, PtyMemberHandle, TerminalScreenSnapshot } from '@muster/backends';

/** How a person can look at one teammate (`TeamMemberStatus.view`). */
export type TeamMemberView =
  /**
   * In-process: no terminal. Its conversation is the team's `agent` events whose `agentName`
   * is the teammate's name (text deltas, tool calls and results, turn ends): build the
   * transcript from those.
   */
  | { kind: 'transcript' }
  /** PTY: its terminal, kept in a headless xterm by the pty backend. */
  | {
      kind: 'screen';
      /** The visible rows as text (joined by `\n`, trailing blanks trimmed); the last screen once it ended. */
      read(): Promise<string>;
      /** The same screen with its size and cursor. */
      snapshot(): Promise<TerminalScreenSnapshot>;
      /** The file every byte it printed is appended to, when the backend keeps one. */
      logFile?: string;
    }
  /** tmux or iTerm2: a pane a person looks at by running `command` in a terminal. */
  | {
      kind: 'attach';
      /** A shell command that shows the pane (`tmux -L muster-x attach -t %3`, `it2 session focus …`). */
      command: string;
      /** The tmux pane id (`%3`) or the iTerm2 session id. */
      paneId?: string;
    }
  /** A backend that offers none of the above (a custom backend); `reason` says so. */
  | { kind: 'unavailable'; reason: string };

function hasScreen(handle: MemberHandle): handle is PtyMemberHandle {
  return typeof (handle as Partial<PtyMemberHandle>).screen === 'function';
}

/** The view of a member from its handle. */
export function memberView(handle: MemberHandle): TeamMemberView {
  if (handle.backend === 'in-process') return { kind: 'transcript' };
  if (hasScreen(handle)) {
    const logFile = handle.describe().logFile;
    return {
      kind: 'screen',
      read: async () => (await handle.screen()).lines.join('\n'),
      snapshot: () => handle.screen(),
      ...(logFile === undefined ? {} : { logFile }),
    };
  }
  const described = handle.describe();
  if (described.attachCommand !== undefined) {
    return {
      kind: 'attach',
      command: described.attachCommand,
      ...(described.paneId === undefined ? {} : { paneId: described.paneId }),
    };
  }
  return {
    kind: 'unavailable',
    reason: `The ${handle.backend} backend gives no screen and no attach command for ${handle.spec.agentName}${described.logFile === undefined ? '' : `; its output is in ${described.logFile}`}.`,
  };
}
