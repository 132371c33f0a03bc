import { Box, Text, useApp, useInput } from 'ink';
import { useEffect, useMemo, useRef, useState } from 'react';
import { symbol, type TerminalStyle } from '../terminal-style.js';
import { describeSession, type DashboardModel } from './dashboard-model.js';
import {
  clampScroll,
  detailPageSize,
  DetailView,
  layoutDetail,
  type DetailItem,
  type DetailLayout,
} from './detail-view.js';
import { colorIf } from './palette.js';
import { FeedPane, MembersPane, membersPaneWidth, TasksPane } from './panes.js';
import { safeLine, terminalSafeModel } from './terminal-safe-model.js';

/** The three panes, in keyboard order. */
export const PANES = ['members', 'tasks', 'messages'] as const;
/** A pane of the dashboard. */
export type PaneName = (typeof PANES)[number];

/** Props of {@link Dashboard}. */
export interface DashboardProps {
  model: DashboardModel;
  style: TerminalStyle;
  /** Keyboard and spinner on (a live terminal); off for a one-off frame. */
  interactive: boolean;
  /** Terminal height; without it every row is shown (one-off frames). */
  rows?: number;
  /** Terminal width; the members pane takes what it needs, up to half of it. */
  columns?: number;
  /** Most messages a one-off frame lists (the newest); default 20. */
  feedLimit?: number;
  /** Called when the user presses q (after ink has been told to exit). */
  onQuit?: () => void;
  /** Status line under the panes, e.g. "watching /root/teams/x". */
  status?: string;
}

function clampIndex(index: number, count: number): number {
  return count === 0 ? 0 : Math.min(Math.max(0, index), count - 1);
}

/** Where the keyboard is: the focused pane, the selected row of each, an open detail view. */
export interface NavigationState {
  focus: PaneName;
  /** Selected row per pane; the messages pane follows the newest while at its end. */
  selection: Record<PaneName, number>;
  detail: boolean;
  /** First row of the open detail view that is shown. */
  detailScroll: number;
}

/** How far the open detail view can scroll: its rows and how many fit at once. */
export interface DetailExtent {
  lineCount: number;
  pageSize: number;
}

/** The keys the dashboard understands (a subset of ink's `Key`). */
export interface NavigationKey {
  tab?: boolean;
  shift?: boolean;
  leftArrow?: boolean;
  rightArrow?: boolean;
  upArrow?: boolean;
  downArrow?: boolean;
  return?: boolean;
  escape?: boolean;
  backspace?: boolean;
  delete?: boolean;
  pageUp?: boolean;
  pageDown?: boolean;
  home?: boolean;
  end?: boolean;
}

const FOLLOW_NEWEST = Number.MAX_SAFE_INTEGER;
/** Problems the live dashboard lists under the panes; the rest are counted. */
const PROBLEMS_SHOWN_LIVE = 3;

/** The state the dashboard starts in: tasks focused, messages following the newest. */
export const INITIAL_NAVIGATION: NavigationState = {
  focus: 'tasks',
  selection: { members: 0, tasks: 0, messages: FOLLOW_NEWEST },
  detail: false,
  detailScroll: 0,
};

function scrollDetail(
  state: NavigationState,
  key: NavigationKey,
  extent: DetailExtent,
): NavigationState {
  const { lineCount, pageSize } = extent;
  const current = clampScroll(state.detailScroll, lineCount, pageSize);
  let next = current;
  if (key.upArrow) next = current - 1;
  else if (key.downArrow) next = current + 1;
  else if (key.pageUp) next = current - Math.max(1, pageSize - 1);
  else if (key.pageDown) next = current + Math.max(1, pageSize - 1);
  else if (key.home) next = 0;
  else if (key.end) next = lineCount;
  next = clampScroll(next, lineCount, pageSize);
  return next === state.detailScroll ? state : { ...state, detailScroll: next };
}

/**
 * The next navigation state after a key. Pure, so each key press works on the latest state
 * even when keys arrive faster than the screen redraws.
 */
export function navigate(
  state: NavigationState,
  key: NavigationKey,
  counts: Record<PaneName, number>,
  detailExtent: DetailExtent = { lineCount: 0, pageSize: 1 },
): NavigationState {
  if (state.detail) {
    if (key.escape || key.return || key.backspace || key.delete) {
      return { ...state, detail: false, detailScroll: 0 };
    }
    return scrollDetail(state, key, detailExtent);
  }
  const move = (step: number): NavigationState => {
    const index = PANES.indexOf(state.focus);
    return { ...state, focus: PANES[(index + step + PANES.length) % PANES.length]! };
  };
  if (key.tab) return move(key.shift ? -1 : 1);
  if (key.rightArrow) return move(1);
  if (key.leftArrow) return move(-1);
  if (key.upArrow || key.downArrow) {
    const pane = state.focus;
    const count = counts[pane];
    const current = clampIndex(state.selection[pane], count);
    const next = clampIndex(current + (key.upArrow ? -1 : 1), count);
    const following = pane === 'messages' && next === count - 1;
    return {
      ...state,
      selection: { ...state.selection, [pane]: following ? FOLLOW_NEWEST : next },
    };
  }
  if (key.return && counts[state.focus] > 0) return { ...state, detail: true, detailScroll: 0 };
  return state;
}

/** Everything the detail view's layout depends on, to tell when it must be made again. */
function detailSignature(
  item: DetailItem,
  style: TerminalStyle,
  columns: number | undefined,
): readonly unknown[] {
  const shown =
    item.kind === 'member' ? item.member : item.kind === 'task' ? item.task : item.entry;
  return [item.kind, style.color, style.unicode, columns, ...Object.values(shown).map(String)];
}

function sameSignature(left: readonly unknown[], right: readonly unknown[]): boolean {
  return left.length === right.length && left.every((value, index) => value === right[index]);
}

/** The watch dashboard: members, tasks and a message feed, with keyboard navigation. */
export function Dashboard(props: DashboardProps) {
  const { style, interactive } = props;
  // Everything drawn comes from disk or agents: escaped once per model, never raw.
  const model = useMemo(() => terminalSafeModel(props.model), [props.model]);
  const { exit } = useApp();
  const [navigation, setNavigation] = useState<NavigationState>(INITIAL_NAVIGATION);
  const [frame, setFrame] = useState(0);

  const feed = interactive ? model.feed : model.feed.slice(-(props.feedLimit ?? 20));
  const counts: Record<PaneName, number> = {
    members: model.members.length,
    tasks: model.tasks.length,
    messages: feed.length,
  };
  const countsReference = useRef(counts);
  countsReference.current = counts;
  const { focus, selection, detail } = navigation;
  const selected: Record<PaneName, number> = {
    members: clampIndex(selection.members, counts.members),
    tasks: clampIndex(selection.tasks, counts.tasks),
    messages: clampIndex(selection.messages, counts.messages),
  };

  const anyInProgress = model.tasks.some((task) => task.status === 'in_progress');
  useEffect(() => {
    if (!interactive || !anyInProgress) return;
    const timer = setInterval(() => setFrame((value) => value + 1), 120);
    return () => clearInterval(timer);
  }, [interactive, anyInProgress]);

  const detailItem = useMemo((): DetailItem | undefined => {
    if (!detail) return undefined;
    if (focus === 'members') {
      const member = model.members[selected.members];
      return member ? { kind: 'member', member } : undefined;
    }
    if (focus === 'tasks') {
      const task = model.tasks[selected.tasks];
      return task ? { kind: 'task', task } : undefined;
    }
    const entry = feed[selected.messages];
    return entry ? { kind: 'message', entry } : undefined;
  }, [detail, focus, model, feed, selected.members, selected.tasks, selected.messages]);

  const rowWrap = interactive ? 'truncate-end' : 'wrap';
  const memberColors = new Map(model.members.map((member) => [member.name, member.color]));
  const separator = ` ${symbol(style, 'separator')} `;
  const header = (
    <Text wrap={rowWrap}>
      <Text bold color={colorIf(style, 'cyan')}>
        muster
      </Text>{' '}
      team <Text bold>{model.teamName}</Text>
      {model.description ? (
        <Text dimColor>{` ${symbol(style, 'dash')} ${model.description}`}</Text>
      ) : null}
      {model.session ? (
        <Text color={colorIf(style, model.session.state === 'running' ? 'green' : 'yellow')}>
          {` ${symbol(style, 'dash')} ${describeSession(model.session)}`}
        </Text>
      ) : null}
      {model.attachHint ? (
        <Text dimColor>{` ${symbol(style, 'dash')} ${model.attachHint}`}</Text>
      ) : null}
    </Text>
  );
  const keys = interactive
    ? [
        `tab/${style.unicode ? '←→' : 'arrows'} pane`,
        `${style.unicode ? '↑↓' : 'up/down'} select`,
        'enter open',
        'q quit',
      ].join(separator)
    : undefined;
  const statusLine = [
    props.status === undefined ? undefined : safeLine(props.status),
    model.hiddenTaskCount > 0
      ? `${model.hiddenTaskCount} internal task${model.hiddenTaskCount === 1 ? '' : 's'} hidden`
      : undefined,
    keys,
  ]
    .filter(Boolean)
    .join(separator);
  // A live terminal lists a few problems and counts the rest, so the panes keep their room.
  const shownProblems =
    interactive && model.problems.length > PROBLEMS_SHOWN_LIVE
      ? [
          ...model.problems.slice(0, PROBLEMS_SHOWN_LIVE - 1),
          `and ${model.problems.length - PROBLEMS_SHOWN_LIVE + 1} more problems: run muster doctor`,
        ]
      : model.problems;
  const footer = (
    <>
      {shownProblems.map((problem, index) => (
        <Text key={index} color={colorIf(style, 'yellow')} wrap={rowWrap}>
          {symbol(style, 'warning')} {problem}
        </Text>
      ))}
      {statusLine ? (
        <Text dimColor wrap={rowWrap}>
          {statusLine}
        </Text>
      ) : null}
    </>
  );

  const rows = props.rows;
  const footerLines = shownProblems.length + (statusLine ? 1 : 0);
  const detailHeight = rows ? Math.max(6, rows - 1 - footerLines) : undefined;
  // Laid out once per item and width (linear in the text); each redraw slices a page.
  // A reload hands in new objects with the same content: lay out again only when what the
  // detail shows, or the width, changed (comparing strings is far cheaper than wrapping them).
  const layoutCache = useRef<{ signature: readonly unknown[]; layout: DetailLayout }>(undefined);
  let detailLayout: DetailLayout | undefined;
  if (detailItem) {
    const signature = detailSignature(detailItem, style, props.columns);
    const cached = layoutCache.current;
    if (cached && sameSignature(cached.signature, signature)) {
      detailLayout = cached.layout;
    } else {
      detailLayout = layoutDetail(detailItem, style, props.columns);
      layoutCache.current = { signature, layout: detailLayout };
    }
  }
  const extentReference = useRef<DetailExtent>({ lineCount: 0, pageSize: 1 });
  extentReference.current = {
    lineCount: detailLayout?.lines.length ?? 0,
    pageSize: detailPageSize(detailHeight),
  };

  useInput(
    (input, key) => {
      if (input === 'q') {
        exit();
        props.onQuit?.();
        return;
      }
      setNavigation((current) =>
        navigate(current, key, countsReference.current, extentReference.current),
      );
    },
    { isActive: interactive },
  );

  if (detailLayout) {
    return (
      <Box flexDirection="column">
        {header}
        <DetailView
          layout={detailLayout}
          style={style}
          height={detailHeight}
          width={props.columns}
          scroll={navigation.detailScroll}
        />
        {footer}
      </Box>
    );
  }
  // Height budget in a live terminal: header, the two top panes side by side, the feed
  // under them, then the footer; borders and titles take three lines per pane.
  let topHeight: number | undefined;
  let feedHeight: number | undefined;
  if (rows) {
    const available = Math.max(10, rows - 1 - footerLines);
    const wanted = Math.max(counts.members, counts.tasks, 1) + 3;
    topHeight = Math.min(wanted, Math.max(5, Math.floor(available * 0.45)));
    feedHeight = Math.max(4, available - topHeight);
  }
  const capacity = (height: number | undefined) => (height ? Math.max(1, height - 3) : undefined);
  return (
    <Box flexDirection="column">
      {header}
      <Box flexDirection="row" height={topHeight}>
        <MembersPane
          members={model.members}
          style={style}
          focused={interactive && focus === 'members'}
          selected={selected.members}
          capacity={capacity(topHeight)}
          height={topHeight}
          width={Math.min(membersPaneWidth(model.members), Math.floor((props.columns ?? 100) / 2))}
          wrap={rowWrap}
        />
        <TasksPane
          tasks={model.tasks}
          hiddenTaskCount={model.hiddenTaskCount}
          memberColors={memberColors}
          style={style}
          focused={interactive && focus === 'tasks'}
          selected={selected.tasks}
          frame={frame}
          capacity={capacity(topHeight)}
          height={topHeight}
          flexGrow={1}
          wrap={rowWrap}
        />
      </Box>
      <FeedPane
        feed={feed}
        style={style}
        {...(model.session?.teamFolderRemoved
          ? { emptyText: 'no messages recorded: muster records them while muster watch runs' }
          : {})}
        focused={interactive && focus === 'messages'}
        selected={selected.messages}
        capacity={capacity(feedHeight)}
        height={feedHeight}
        flexGrow={1}
        wrap={rowWrap}
      />
      {footer}
    </Box>
  );
}
