import type { TerminalStyle } from '../terminal-style.js';
import type { MemberState } from './dashboard-model.js';

// Claude Code names its teammate colors after its own palette; map them to colors every
// terminal that ink draws on understands.
const MEMBER_COLORS: Record<string, string> = {
  red: 'red',
  blue: 'blue',
  green: 'green',
  yellow: 'yellow',
  purple: 'magenta',
  magenta: 'magenta',
  orange: '#ff8700',
  pink: '#ff5fd7',
  cyan: 'cyan',
  white: 'white',
  gray: 'gray',
  grey: 'gray',
};

/** The ink color for a member color name, or undefined when colors are off or unknown. */
export function memberColor(style: TerminalStyle, name: string | undefined): string | undefined {
  if (!style.color || name === undefined) return undefined;
  return MEMBER_COLORS[name.toLowerCase()];
}

const STATE_COLORS: Record<MemberState, string> = {
  working: 'green',
  idle: 'gray',
  'awaiting plan approval': 'yellow',
  stopping: 'magenta',
  starting: 'cyan',
  gone: 'red',
  unknown: 'gray',
};

/** The ink color for a member state, or undefined when colors are off. */
export function stateColor(style: TerminalStyle, state: MemberState): string | undefined {
  return style.color ? STATE_COLORS[state] : undefined;
}

/** An ink color when colors are on; undefined otherwise (so ink prints plain text). */
export function colorIf(style: TerminalStyle, color: string): string | undefined {
  return style.color ? color : undefined;
}

/** Spinner frames for tasks in progress. */
export function spinnerFrames(style: TerminalStyle): readonly string[] {
  return style.unicode ? ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'] : ['|', '/', '-', '\\'];
}
