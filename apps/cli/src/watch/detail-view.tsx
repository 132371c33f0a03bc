import { Box, Text } from 'ink';
import { symbol, type TerminalStyle } from '../terminal-style.js';
import { escapeTerminalText } from '../terminal-text.js';
import type { FeedEntry, MemberRow, TaskRow } from './dashboard-model.js';
import { colorIf, memberColor, stateColor } from './palette.js';
import { clockTime } from './clock-time.js';
import { wrapText } from './text-layout.js';

/** What the detail view shows: the member, task or message picked with enter. */
export type DetailItem =
  | { kind: 'member'; member: MemberRow }
  | { kind: 'task'; task: TaskRow }
  | { kind: 'message'; entry: FeedEntry };

/** One row of the detail view, already wrapped to the view's width. */
export interface DetailLine {
  /** The field's label on its first row, blanks on the rows it wraps onto. */
  label?: string;
  text: string;
  color?: string | undefined;
  bold?: boolean;
}

/** An item laid out as rows: its title and every row of its fields and body. */
export interface DetailLayout {
  title: string;
  lines: DetailLine[];
}

const LABEL_WIDTH = 14;
/** Rows of the detail box that are not the body: border 2, title 1, key help 2. */
const DETAIL_CHROME_ROWS = 5;
/** Columns of the detail box that are not text: border 2, padding 2. */
const DETAIL_CHROME_COLUMNS = 4;

function ids(list: readonly string[], style: TerminalStyle): string {
  return list.length === 0 ? symbol(style, 'dash') : list.map((id) => `#${id}`).join(', ');
}

/** Rows of text a detail view of this height shows at once. */
export function detailPageSize(height: number | undefined): number {
  return Math.max(1, (height ?? 24) - DETAIL_CHROME_ROWS);
}

/**
 * Lays an item out for the detail view: one-line fields (already escaped by the model) with
 * their labels, then the long text (a task's description, a message's content), escaped
 * here with its line breaks kept and wrapped to `columns`. Linear in the text; the caller
 * keeps the result while the item and width stay the same.
 */
export function layoutDetail(
  item: DetailItem,
  style: TerminalStyle,
  columns: number | undefined,
): DetailLayout {
  const width = Math.max(10, (columns ?? 80) - DETAIL_CHROME_COLUMNS);
  const lines: DetailLine[] = [];
  const field = (label: string, value: string, color?: string) => {
    wrapText(value, width - LABEL_WIDTH).forEach((text, index) => {
      lines.push({ label: index === 0 ? label : '', text, color });
    });
  };
  const body = (text: string, bold = false) => {
    lines.push({ text: '' });
    for (const row of wrapText(escapeTerminalText(text, { keepLineBreaks: true }), width)) {
      lines.push({ text: row, bold });
    }
  };
  if (item.kind === 'member') {
    const { member } = item;
    field('state', member.state, stateColor(style, member.state));
    field('backend', member.backend);
    field('color', member.color ?? symbol(style, 'dash'), memberColor(style, member.color));
    field('type', member.agentType ?? symbol(style, 'dash'));
    field('model', member.model ?? symbol(style, 'dash'));
    field('unread', String(member.unread));
    if (member.isActive !== undefined) field('isActive', member.isActive ? 'true' : 'false');
    if (member.look !== undefined) field('look at it', member.look);
    field(
      'last message',
      member.lastMessageAt
        ? `${clockTime(member.lastMessageAt)} (${escapeTerminalText(member.lastMessageAt)})`
        : symbol(style, 'dash'),
    );
    return { title: `Member ${member.name}`, lines };
  }
  if (item.kind === 'task') {
    const { task } = item;
    field('status', task.status.replace('_', ' '));
    if (task.activeForm) field('active form', task.activeForm);
    field('owner', task.owner ?? symbol(style, 'dash'));
    field(
      'blocked by',
      ids(task.openBlockers, style),
      task.openBlockers.length ? colorIf(style, 'yellow') : undefined,
    );
    field('blocks', ids(task.blocks, style));
    body(task.description || '(no description)');
    return { title: `Task #${task.id}: ${task.subject}`, lines };
  }
  const { entry } = item;
  field('to', entry.recipients.join(', '));
  field('sent', `${clockTime(entry.timestamp)} (${escapeTerminalText(entry.timestamp)})`);
  field('kind', entry.kind);
  field('read', entry.read ? 'yes' : 'no');
  // The signature is there; only the teammate's --lead-verify-key can check it.
  if (entry.signed) field('signed', 'yes (carries the lead_sig of a 2.1.330 lead)');
  body(entry.sentence, true);
  if (entry.detail !== entry.sentence) body(entry.detail);
  return { title: `Message from ${entry.from}`, lines };
}

/** The first row to show: `scroll` kept within the layout. */
export function clampScroll(scroll: number, lineCount: number, pageSize: number): number {
  return Math.min(Math.max(0, scroll), Math.max(0, lineCount - pageSize));
}

/**
 * One member, task or message in full, scrolled to `scroll`: only the rows that fit are
 * drawn, whatever the size of the text. ↑↓, PgUp/PgDn, Home/End scroll; esc or enter goes back.
 */
export function DetailView(props: {
  layout: DetailLayout;
  style: TerminalStyle;
  height?: number;
  /** Terminal width, the width the layout was made for. */
  width?: number;
  scroll: number;
}) {
  const { layout, style } = props;
  const pageSize = detailPageSize(props.height);
  const first = clampScroll(props.scroll, layout.lines.length, pageSize);
  const shown = layout.lines.slice(first, first + pageSize);
  const last = first + shown.length;
  const separator = ` ${symbol(style, 'separator')} `;
  const position =
    layout.lines.length > pageSize
      ? `lines ${first + 1}-${last} of ${layout.lines.length}${separator}${style.unicode ? '↑↓ PgUp/PgDn Home/End' : 'up/down PgUp/PgDn Home/End'} scroll${separator}`
      : '';
  return (
    <Box
      flexDirection="column"
      borderStyle={style.unicode ? 'round' : 'classic'}
      borderColor={colorIf(style, 'cyan')}
      paddingX={1}
      height={props.height === undefined ? undefined : pageSize + DETAIL_CHROME_ROWS}
      width={props.width}
      overflow="hidden"
    >
      <Text bold wrap="truncate-end">
        {layout.title}
      </Text>
      {shown.map((line, index) => (
        <Text key={first + index} wrap="truncate-end" bold={line.bold === true}>
          {line.label === undefined ? null : <Text dimColor>{line.label.padEnd(LABEL_WIDTH)}</Text>}
          <Text color={line.color}>{line.text === '' ? ' ' : line.text}</Text>
        </Text>
      ))}
      <Box marginTop={1}>
        <Text dimColor wrap="truncate-end">
          {position}esc or enter {symbol(style, 'arrow')} back{separator}q quit
        </Text>
      </Box>
    </Box>
  );
}
