// The interactive app's screen: status, teammates, tasks, the selected agent's conversation
// (or the ask waiting for the person), the prompt line and the key hints, laid out to fit the
// terminal exactly, one row per line: nothing wraps, whatever is too long is cut.
import { Box, Text } from 'ink';
import type { TerminalStyle } from '../terminal-style.js';
import { currentAsk, type KeyboardState } from './key-handling.js';
import {
  askRows,
  hintRow,
  promptRow,
  statusRows,
  taskRows,
  teammateRows,
  type StoppingView,
} from './panel-rows.js';
import { conversationRows, fitRow, safeText, tint, type Row } from './screen-rows.js';
import { LEAD_NAME, type SessionModel } from './session-model.js';
import { EMPTY_CONVERSATION } from './conversation-model.js';

/** Props of {@link SessionScreen}. */
export interface SessionScreenProps {
  model: SessionModel;
  keyboard: KeyboardState;
  style: TerminalStyle;
  rows: number;
  columns: number;
  stopping?: StoppingView;
}

/** The fewest rows the screen lays out (a smaller terminal gets the top of it). */
const MINIMUM_ROWS = 12;

/** Rows the conversation gets on a screen of `rows` (for PageUp/PageDown). */
export function conversationPageRows(screen: SessionScreenProps): number {
  return layoutScreen(screen).conversationRowCount;
}

function viewTitle(
  model: SessionModel,
  selected: string,
  style: TerminalStyle,
  scrolled: number,
): Row {
  const more = scrolled > 0 ? ` (scrolled up ${scrolled}; End: newest)` : '';
  if (selected === LEAD_NAME) {
    return [
      {
        text: `${style.unicode ? '─' : '-'} the lead's conversation${more}`,
        bold: true,
        ...tint(style, 'blue'),
      },
    ];
  }
  const member = model.members.find((candidate) => candidate.name === selected);
  const backend = member?.backend ?? 'unknown backend';
  const what =
    member?.screen !== undefined
      ? 'its screen, live'
      : backend === 'in-process'
        ? 'its conversation, live'
        : 'its messages';
  return [
    {
      text: `${style.unicode ? '─' : '-'} ${safeText(selected)} (${safeText(backend)}): ${what}${more}`,
      bold: true,
      ...tint(style, 'blue'),
    },
  ];
}

/**
 * Rows for a teammate whose conversation does not reach this process: a pty teammate's screen
 * (its last `count` rows), else where it runs and how to look at it (a tmux attach command).
 */
function outsideViewRows(model: SessionModel, selected: string, count: number): Row[] {
  const member = model.members.find((candidate) => candidate.name === selected);
  if (member === undefined || member.backend === undefined || member.backend === 'in-process')
    return [];
  if (member.screen !== undefined) {
    const lines = member.screen.split('\n');
    while (lines.length > 0 && lines.at(-1)?.trim() === '') lines.pop();
    return lines.slice(-count).map((line) => [{ text: safeText(line) }]);
  }
  const rows: Row[] = [
    [{ text: `${safeText(selected)} runs in its own ${safeText(member.backend)} process.` }],
  ];
  if (member.look !== undefined) rows.push([{ text: safeText(member.look) }]);
  return rows;
}

/** Every row of the screen, in order, and how many the conversation got. */
export function layoutScreen(props: SessionScreenProps): {
  rows: Row[];
  conversationRowCount: number;
} {
  const { model, keyboard, style } = props;
  const width = Math.max(20, props.columns);
  // One row short of the terminal: ink redraws a full-height frame by scrolling.
  const height = Math.max(MINIMUM_ROWS, props.rows - 1);
  const size = height >= 30 ? 'roomy' : height >= 20 ? 'normal' : 'small';
  const top = statusRows(model, style, props.stopping, width);
  const teammates = teammateRows(
    model,
    keyboard.selected,
    style,
    size === 'roomy' ? 9 : size === 'normal' ? 5 : 3,
  );
  const tasks = taskRows(
    model.tasks,
    style,
    model.tasks.length === 0 ? 1 : size === 'roomy' ? 8 : size === 'normal' ? 4 : 2,
  );
  const ask = currentAsk(model.asks, keyboard);
  const fixed = top.length + teammates.length + tasks.length + 1 /* view title */ + 1; /* hints */
  let bottom: Row[];
  if (ask === undefined) {
    bottom = [promptRow(keyboard, style, width)];
  } else {
    // The ask takes what it needs, leaving the conversation at least three rows.
    const spare = height - fixed - 3;
    bottom = askRows(model, ask, keyboard, style, width, Math.max(0, spare - 2));
  }
  const conversationRowCount = Math.max(0, height - fixed - bottom.length);
  const outside = outsideViewRows(model, keyboard.selected, conversationRowCount).slice(
    0,
    conversationRowCount,
  );
  const conversation = conversationRows(
    model.conversations[keyboard.selected] ?? EMPTY_CONVERSATION,
    {
      width,
      count: Math.max(0, conversationRowCount - outside.length),
      scroll: keyboard.scroll,
      style,
      showResults: keyboard.showResults,
    },
  );
  const filler: Row[] = Array.from(
    { length: Math.max(0, conversationRowCount - outside.length - conversation.rows.length) },
    () => [{ text: '' }],
  );
  const selectedIsLead = keyboard.selected === LEAD_NAME;
  const head = [
    ...top,
    ...teammates,
    ...tasks,
    viewTitle(model, keyboard.selected, style, conversation.scroll),
  ];
  const tail = [
    ...bottom,
    hintRow(keyboard, style, {
      leadTurnRunning: model.conversations[LEAD_NAME]?.turnRunning === true,
      selectedIsLead,
      asking: ask !== undefined,
      asideAsks: ask === undefined ? model.asks.length : 0,
    }),
  ];
  // On a screen too small for everything, the answer and hint rows stay; the panels give way.
  const middle = [...outside, ...conversation.rows, ...filler];
  const rows = [
    ...head.slice(0, Math.max(0, height - tail.length - middle.length)),
    ...middle,
    ...tail,
  ].slice(-height);
  return {
    rows: rows.map((row) => fitRow(row, width, style)),
    conversationRowCount,
  };
}

/** Draws the screen: every row one terminal line, cut to the width. */
export function SessionScreen(props: SessionScreenProps) {
  const { rows } = layoutScreen(props);
  return (
    <Box flexDirection="column" width={Math.max(20, props.columns)}>
      {rows.map((row, index) => (
        <Text key={index} wrap="truncate-end">
          {row.every((segment) => segment.text === '') ? ' ' : ''}
          {row.map((segment, segmentIndex) => (
            <Text
              key={segmentIndex}
              {...(segment.color === undefined ? {} : { color: segment.color })}
              bold={segment.bold === true}
              dimColor={segment.dim === true}
              inverse={segment.inverse === true}
            >
              {segment.text}
            </Text>
          ))}
        </Text>
      ))}
    </Box>
  );
}
