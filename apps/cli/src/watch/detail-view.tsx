import { Box, Text } from 'ink';
import type { ReactNode } from 'react';
import { symbol, type TerminalStyle } from '../terminal-style.js';
import type { FeedEntry, MemberRow, TaskRow } from './dashboard-model.js';
import { colorIf, memberColor, stateColor } from './palette.js';
import { clockTime } from './clock-time.js';

/** What the detail view shows: the member, task or message picked with enter. */
export type DetailItem =
  | { kind: 'member'; member: MemberRow }
  | { kind: 'task'; task: TaskRow }
  | { kind: 'message'; entry: FeedEntry };

function Field(props: { label: string; children: string; color?: string | undefined }) {
  return (
    <Text wrap="wrap">
      <Text dimColor>{props.label.padEnd(12)}</Text>
      <Text color={props.color}>{props.children}</Text>
    </Text>
  );
}

function ids(list: readonly string[], style: TerminalStyle): string {
  return list.length === 0 ? symbol(style, 'dash') : list.map((id) => `#${id}`).join(', ');
}

/** One member, task or message in full; esc or enter goes back. */
export function DetailView(props: { item: DetailItem; style: TerminalStyle; height?: number }) {
  const { item, style } = props;
  let title: string;
  let body: ReactNode;
  if (item.kind === 'member') {
    const { member } = item;
    title = `Member ${member.name}`;
    body = (
      <>
        <Field label="state" color={stateColor(style, member.state)}>
          {member.state}
        </Field>
        <Field label="backend">{member.backend}</Field>
        <Field label="color" color={memberColor(style, member.color)}>
          {member.color ?? symbol(style, 'dash')}
        </Field>
        <Field label="type">{member.agentType ?? symbol(style, 'dash')}</Field>
        <Field label="model">{member.model ?? symbol(style, 'dash')}</Field>
        <Field label="unread">{String(member.unread)}</Field>
      </>
    );
  } else if (item.kind === 'task') {
    const { task } = item;
    title = `Task #${task.id}: ${task.subject}`;
    body = (
      <>
        <Field label="status">{task.status.replace('_', ' ')}</Field>
        {task.activeForm ? <Field label="active form">{task.activeForm}</Field> : null}
        <Field label="owner">{task.owner ?? symbol(style, 'dash')}</Field>
        <Field
          label="blocked by"
          color={task.openBlockers.length ? colorIf(style, 'yellow') : undefined}
        >
          {ids(task.openBlockers, style)}
        </Field>
        <Field label="blocks">{ids(task.blocks, style)}</Field>
        <Box marginTop={1}>
          <Text wrap="wrap">{task.description || '(no description)'}</Text>
        </Box>
      </>
    );
  } else {
    const { entry } = item;
    title = `Message from ${entry.from}`;
    body = (
      <>
        <Field label="to">{entry.recipients.join(', ')}</Field>
        <Field label="sent">{`${clockTime(entry.timestamp)} (${entry.timestamp})`}</Field>
        <Field label="kind">{entry.kind}</Field>
        <Field label="read">{entry.read ? 'yes' : 'no'}</Field>
        <Box marginTop={1}>
          <Text wrap="wrap" bold>
            {entry.sentence}
          </Text>
        </Box>
        {entry.detail !== entry.sentence ? (
          <Box marginTop={1}>
            <Text wrap="wrap">{entry.detail}</Text>
          </Box>
        ) : null}
      </>
    );
  }
  return (
    <Box
      flexDirection="column"
      borderStyle={style.unicode ? 'round' : 'classic'}
      borderColor={colorIf(style, 'cyan')}
      paddingX={1}
      height={props.height}
      overflow="hidden"
    >
      <Text bold wrap="truncate-end">
        {title}
      </Text>
      {body}
      <Box marginTop={1}>
        <Text dimColor>
          esc or enter {symbol(style, 'arrow')} back {symbol(style, 'separator')} q quit
        </Text>
      </Box>
    </Box>
  );
}
