import { Box, Text } from 'ink';
import type { ReactNode } from 'react';
import { symbol, type TerminalStyle } from '../terminal-style.js';
import type { FeedEntry, MemberRow, TaskRow } from './dashboard-model.js';
import { colorIf, memberColor, spinnerFrames, stateColor } from './palette.js';
import { clockTime } from './clock-time.js';

/** How a row longer than its pane is shown. */
export type RowWrap = 'wrap' | 'truncate-end';

/** The first and one-past-last row to show so that `selected` stays in view. */
export function visibleWindow(
  count: number,
  selected: number,
  capacity: number | undefined,
): [number, number] {
  if (capacity === undefined || count <= capacity) return [0, count];
  const size = Math.max(1, capacity);
  const start = Math.min(Math.max(0, selected - size + 1), count - size);
  return [Math.max(0, start), Math.max(0, start) + size];
}

/** A bordered, titled box; its border is highlighted while it has the keyboard. */
export function Pane(props: {
  title: string;
  focused: boolean;
  style: TerminalStyle;
  height?: number;
  width?: number | string;
  flexGrow?: number;
  flexShrink?: number;
  children: ReactNode;
}) {
  const { style, focused } = props;
  return (
    <Box
      flexDirection="column"
      borderStyle={style.unicode ? 'round' : 'classic'}
      borderColor={focused ? colorIf(style, 'cyan') : colorIf(style, 'gray')}
      height={props.height}
      width={props.width}
      flexGrow={props.flexGrow}
      flexShrink={props.flexShrink ?? 1}
      paddingX={1}
      overflow="hidden"
    >
      <Text bold wrap="truncate-end">
        {focused && !style.color ? `${props.title} ${symbol(style, 'arrow')}` : props.title}
      </Text>
      {props.children}
    </Box>
  );
}

function Selectable(props: { selected: boolean; style: TerminalStyle; children: ReactNode }) {
  const marker = props.selected ? (props.style.unicode ? '›' : '>') : ' ';
  return (
    <Box>
      <Text inverse={props.selected && props.style.color}>{marker}</Text>
      <Box flexGrow={1} overflow="hidden">
        {props.children}
      </Box>
    </Box>
  );
}

/** Columns the members pane needs to show every row in full (borders included). */
export function membersPaneWidth(members: readonly MemberRow[]): number {
  const nameWidth = Math.max(4, ...members.map((member) => member.name.length));
  const backendWidth = Math.max(7, ...members.map((member) => member.backend.length));
  const rowWidth = Math.max(
    16,
    ...members.map(
      (member) =>
        nameWidth +
        backendWidth +
        member.state.length +
        (member.unread > 0 ? ` (${member.unread} unread)`.length : 0),
    ),
  );
  // border 2, padding 2, selection marker 1, bullet and space 2, two gaps 2
  return rowWidth + 9;
}

/** Members with their colors, backend and state. */
export function MembersPane(props: {
  members: readonly MemberRow[];
  style: TerminalStyle;
  focused: boolean;
  selected: number;
  capacity?: number;
  height?: number;
  width?: number | string;
  /** Long rows are cut (live view) or wrapped (one-off frames). */
  wrap?: RowWrap;
}) {
  const { members, style } = props;
  const [start, end] = visibleWindow(members.length, props.selected, props.capacity);
  const nameWidth = Math.max(4, ...members.map((member) => member.name.length));
  const backendWidth = Math.max(7, ...members.map((member) => member.backend.length));
  return (
    <Pane
      title={`Members (${members.length})`}
      focused={props.focused}
      style={style}
      height={props.height}
      width={props.width}
      flexShrink={0}
    >
      {members.length === 0 ? <Text dimColor>no members</Text> : null}
      {members.slice(start, end).map((member, offset) => (
        <Selectable
          key={start + offset}
          selected={props.focused && start + offset === props.selected}
          style={style}
        >
          <Text wrap={props.wrap ?? 'truncate-end'}>
            <Text color={memberColor(style, member.color)}>{symbol(style, 'bullet')} </Text>
            <Text color={memberColor(style, member.color)} bold={member.isLead}>
              {member.name.padEnd(nameWidth)}
            </Text>{' '}
            <Text dimColor>{member.backend.padEnd(backendWidth)}</Text>{' '}
            <Text color={stateColor(style, member.state)}>{member.state}</Text>
            {member.unread > 0 ? <Text dimColor> ({member.unread} unread)</Text> : null}
          </Text>
        </Selectable>
      ))}
    </Pane>
  );
}

function taskSymbol(task: TaskRow, style: TerminalStyle, frame: number): string {
  if (task.status === 'completed') return symbol(style, 'completed');
  if (task.status === 'in_progress') {
    const frames = spinnerFrames(style);
    return frames[frame % frames.length]!;
  }
  return task.openBlockers.length > 0 ? symbol(style, 'blocked') : symbol(style, 'pending');
}

function taskStatusText(task: TaskRow, style: TerminalStyle): string {
  if (task.status === 'in_progress') {
    return task.activeForm ? `${task.activeForm}${symbol(style, 'ellipsis')}` : 'in progress';
  }
  if (task.status === 'pending' && task.openBlockers.length > 0) {
    return `blocked by ${task.openBlockers.map((id) => `#${id}`).join(', ')}`;
  }
  return task.status;
}

const TASK_STATUS_COLORS: Record<TaskRow['status'], string> = {
  pending: 'white',
  in_progress: 'cyan',
  completed: 'green',
};

/** Tasks with status, owner, a spinner and `activeForm` while in progress, and blockers. */
export function TasksPane(props: {
  tasks: readonly TaskRow[];
  hiddenTaskCount: number;
  memberColors: ReadonlyMap<string, string | undefined>;
  style: TerminalStyle;
  focused: boolean;
  selected: number;
  frame: number;
  capacity?: number;
  height?: number;
  flexGrow?: number;
  wrap?: RowWrap;
}) {
  const { tasks, style } = props;
  const [start, end] = visibleWindow(tasks.length, props.selected, props.capacity);
  const done = tasks.filter((task) => task.status === 'completed').length;
  return (
    <Pane
      title={`Tasks (${done}/${tasks.length} done)`}
      focused={props.focused}
      style={style}
      height={props.height}
      flexGrow={props.flexGrow}
    >
      {tasks.length === 0 ? (
        <Text dimColor>{'no tasks yet: muster tasks add "<subject>"'}</Text>
      ) : null}
      {tasks.slice(start, end).map((task, offset) => {
        const blocked = task.status === 'pending' && task.openBlockers.length > 0;
        return (
          <Selectable
            key={task.id}
            selected={props.focused && start + offset === props.selected}
            style={style}
          >
            <Text wrap={props.wrap ?? 'truncate-end'}>
              <Text color={colorIf(style, blocked ? 'yellow' : TASK_STATUS_COLORS[task.status])}>
                {taskSymbol(task, style, props.frame)}
              </Text>{' '}
              <Text dimColor>#{task.id}</Text> {task.subject}
              <Text dimColor> {symbol(style, 'separator')} </Text>
              <Text color={colorIf(style, blocked ? 'yellow' : TASK_STATUS_COLORS[task.status])}>
                {taskStatusText(task, style)}
              </Text>
              {task.owner ? (
                <Text color={memberColor(style, props.memberColors.get(task.owner))}>
                  {' '}
                  @{task.owner}
                </Text>
              ) : null}
            </Text>
          </Selectable>
        );
      })}
    </Pane>
  );
}

/** Recent messages across every inbox, protocol messages in words. */
export function FeedPane(props: {
  feed: readonly FeedEntry[];
  style: TerminalStyle;
  /** What an empty feed says (default: how to send a first message). */
  emptyText?: string;
  focused: boolean;
  selected: number;
  capacity?: number;
  height?: number;
  flexGrow?: number;
  wrap?: RowWrap;
}) {
  const { feed, style } = props;
  const [start, end] = visibleWindow(feed.length, props.selected, props.capacity);
  return (
    <Pane
      title={`Messages (${feed.length})`}
      focused={props.focused}
      style={style}
      height={props.height}
      flexGrow={props.flexGrow}
    >
      {feed.length === 0 ? (
        <Text dimColor>{props.emptyText ?? 'no messages yet: muster send <agent> "<text>"'}</Text>
      ) : null}
      {feed.slice(start, end).map((entry, offset) => (
        <Selectable
          key={entry.key}
          selected={props.focused && start + offset === props.selected}
          style={style}
        >
          <Text wrap={props.wrap ?? 'truncate-end'}>
            <Text dimColor>{clockTime(entry.timestamp)}</Text>{' '}
            <Text color={memberColor(style, entry.fromColor)}>{symbol(style, 'bullet')}</Text>{' '}
            <Text bold={!entry.read && style.color}>{entry.sentence}</Text>
          </Text>
        </Selectable>
      ))}
    </Pane>
  );
}
