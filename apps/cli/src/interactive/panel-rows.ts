// The rows of the interactive app's panels: the status line, the teammates panel, the task
// list, a waiting ask, the prompt line and the key hints. Pure; every outside text escaped.
import type { TerminalStyle } from '../terminal-style.js';
import { memberColor } from '../watch/palette.js';
import type { KeyboardState } from './key-handling.js';
import { mark, safeText, tint, wrappedRows, type Row, type Segment } from './screen-rows.js';
import {
  LEAD_NAME,
  agentCost,
  totalCost,
  totalTokens,
  type AskView,
  type MemberView,
  type SessionModel,
  type TaskView,
} from './session-model.js';

/** The banner every screen of the scripted demo starts with. */
export const SCRIPTED_DEMO_BANNER = '[scripted demo: @muster/scripted-model, not a model]';

/** The banner on a pane narrower than {@link SCRIPTED_DEMO_BANNER}. */
export const SHORT_DEMO_BANNER = '[scripted demo, not a model]';

/** How the app is ending, for the status line. */
export interface StoppingView {
  /** Seconds left before the teammates that did not stop are ended. */
  secondsLeft: number;
  /** Second Ctrl-C: everything is being ended now. */
  forced: boolean;
}

/** `12.3k` for 12 345 tokens. */
export function formatTokens(tokens: number): string {
  if (tokens < 1000) return String(tokens);
  if (tokens < 1_000_000) return `${(tokens / 1000).toFixed(1)}k`;
  return `${(tokens / 1_000_000).toFixed(1)}M`;
}

/**
 * `~$0.0123` (or `~$1.23` from a dollar up): an estimate; `cost ?` when it is unknown; `no cost`
 * in the scripted demo, whose tokens come from a script, not a model (no price applies).
 */
export function formatCost(cost: number | undefined, scriptedDemo = false): string {
  if (scriptedDemo) return 'no cost';
  if (cost === undefined) return 'cost ?';
  return cost >= 1 ? `~$${cost.toFixed(2)}` : `~$${cost.toFixed(4)}`;
}

const STATE_LABELS: Record<string, string> = {
  starting: 'starting',
  working: 'working',
  idle: 'idle',
  awaiting_plan_approval: 'plan wait',
  stopping: 'stopping',
  gone: 'gone',
};

const STATE_COLORS: Record<string, string> = {
  starting: 'cyan',
  working: 'green',
  idle: 'gray',
  awaiting_plan_approval: 'yellow',
  stopping: 'magenta',
  gone: 'red',
};

/** The status rows: the demo banner (scripted demo only) and model, mode, team, cost. */
export function statusRows(
  model: SessionModel,
  style: TerminalStyle,
  stopping: StoppingView | undefined,
  width = Number.POSITIVE_INFINITY,
): Row[] {
  const rows: Row[] = [];
  if (model.scriptedDemo) {
    // A narrow pane still shows that it is a script, whole.
    const banner = width >= SCRIPTED_DEMO_BANNER.length ? SCRIPTED_DEMO_BANNER : SHORT_DEMO_BANNER;
    rows.push([{ text: banner, bold: true, ...tint(style, 'yellow') }]);
  }
  const separator = ` ${mark(style, 'separator')} `;
  const tokens =
    totalTokens(model.leadUsage) +
    model.members.reduce((sum, member) => sum + totalTokens(member.usage), 0);
  const status: Segment[] = [
    {
      text: `team ${model.teamName === undefined ? '(none yet)' : safeText(model.teamName)}`,
      bold: true,
    },
    {
      text: model.scriptedDemo
        ? `${separator}${formatTokens(tokens)} tok (scripted) no cost`
        : `${separator}${formatTokens(tokens)} tok ${formatCost(totalCost(model))}${
            model.unpriced.length > 0 && totalCost(model) !== undefined ? ' + cost ?' : ''
          }`,
    },
    { text: `${separator}model ${safeText(model.model)}` },
    { text: `${separator}mode ${safeText(model.permissionMode)}` },
  ];
  if (stopping !== undefined) {
    status.unshift({
      text: stopping.forced
        ? 'ENDING everything now '
        : `SHUTTING DOWN: ${stopping.secondsLeft} s left (Ctrl-C again: end now) `,
      bold: true,
      ...tint(style, 'red'),
    });
  }
  rows.push(status);
  return rows;
}

function memberCells(
  member: MemberView | undefined,
  name: string,
  model: SessionModel,
  style: TerminalStyle,
  nameWidth: number,
): Segment[] {
  const isLead = name === LEAD_NAME;
  const leadRunning = model.conversations[LEAD_NAME]?.turnRunning === true;
  const state = isLead ? (leadRunning ? 'working' : 'idle') : (member?.state ?? 'starting');
  const usage = isLead ? model.leadUsage : member?.usage;
  const cost = agentCost(model, name);
  const doing = isLead
    ? ''
    : member?.task !== undefined
      ? (member.task.activeForm ?? member.task.subject)
      : (member?.stateDetail ?? '');
  const color = isLead ? undefined : memberColor(style, member?.color);
  return [
    {
      text: safeText(name).padEnd(nameWidth),
      bold: true,
      ...(color === undefined ? {} : { color }),
    },
    { text: ` ${(isLead ? 'lead' : safeText(member?.backend ?? '?')).padEnd(10)}` },
    {
      text: ` ${(STATE_LABELS[state] ?? safeText(state)).padEnd(9)}`,
      ...tint(style, STATE_COLORS[state] ?? 'gray'),
    },
    {
      text: ` ${formatTokens(totalTokens(usage)).padStart(6)} tok ${formatCost(cost, model.scriptedDemo).padEnd(9)}`,
    },
    { text: doing === '' ? '' : ` ${safeText(doing)}`, dim: true },
  ];
}

/** The teammates panel: a header, then the lead and each teammate (the selected one marked). */
export function teammateRows(
  model: SessionModel,
  selected: string,
  style: TerminalStyle,
  limit: number,
): Row[] {
  const names = [LEAD_NAME, ...model.members.map((member) => member.name)];
  const nameWidth = Math.min(16, Math.max(...names.map((name) => safeText(name).length)));
  const rows: Row[] = [
    [
      { text: `Teammates (${model.members.length})`, bold: true },
      { text: '  Tab/arrows: select', dim: true },
    ],
  ];
  // Keep the selected agent on screen when there are more than fit.
  const shownCount = Math.max(1, limit - 1);
  const selectedIndex = Math.max(0, names.indexOf(selected));
  const first = Math.max(0, Math.min(selectedIndex - shownCount + 1, names.length - shownCount));
  for (const [offset, name] of names.slice(first, first + shownCount).entries()) {
    const index = first + offset;
    const member = model.members.find((candidate) => candidate.name === name);
    const pointer = name === selected ? (style.unicode ? '▸' : '>') : ' ';
    rows.push([
      { text: `${pointer}${index} `, ...(name === selected ? { bold: true } : {}) },
      ...memberCells(member, name, model, style, nameWidth),
    ]);
  }
  return rows;
}

const TASK_MARKS: Record<string, 'pending' | 'inProgress' | 'completed'> = {
  pending: 'pending',
  in_progress: 'inProgress',
  completed: 'completed',
};

/** The task list: a header with counts, then the tasks (unfinished first) up to `limit` rows. */
export function taskRows(tasks: readonly TaskView[], style: TerminalStyle, limit: number): Row[] {
  const done = tasks.filter((task) => task.status === 'completed').length;
  const ordered = [
    ...tasks.filter((task) => task.status === 'in_progress'),
    ...tasks.filter((task) => task.status !== 'in_progress' && task.status !== 'completed'),
    ...tasks.filter((task) => task.status === 'completed'),
  ];
  const shown = ordered.slice(0, Math.max(0, limit - 1));
  const hidden = ordered.length - shown.length;
  const rows: Row[] = [
    [
      { text: `Tasks (${tasks.length}, ${done} done)`, bold: true },
      { text: hidden > 0 ? `  +${hidden} not shown` : '', dim: true },
    ],
  ];
  for (const task of shown) {
    const symbolName = TASK_MARKS[task.status] ?? 'pending';
    const doing =
      task.status === 'in_progress' && task.activeForm !== undefined
        ? ` ${mark(style, 'separator')} ${safeText(task.activeForm)}`
        : '';
    rows.push([
      {
        text: `${mark(style, symbolName)} `,
        ...tint(
          style,
          task.status === 'completed' ? 'green' : task.status === 'in_progress' ? 'yellow' : 'gray',
        ),
      },
      { text: `#${safeText(task.id)} ${safeText(task.subject)}${doing}` },
      { text: task.owner === undefined ? '' : ` @${safeText(task.owner)}`, dim: true },
    ]);
  }
  return rows;
}

/** The badge of an asking agent: `[alice]` in its color. */
function badge(model: SessionModel, name: string, style: TerminalStyle): Segment {
  const color = memberColor(style, model.members.find((member) => member.name === name)?.color);
  return {
    text: `[${safeText(name)}]`,
    bold: true,
    inverse: style.color,
    ...(color === undefined ? {} : { color }),
  };
}

/**
 * The rows of the ask the person answers now: the asking agent's badge and what it asks, its
 * details (the plan's text, or the tool input) in at most `bodyLimit` rows, and the answer line.
 */
export function askRows(
  model: SessionModel,
  ask: AskView,
  keyboard: KeyboardState,
  style: TerminalStyle,
  width: number,
  bodyLimit: number,
): Row[] {
  const waiting = model.asks.length > 1 ? ` (${model.asks.length - 1} more waiting)` : '';
  const title: Row = [
    badge(model, ask.agentName, style),
    {
      text:
        ask.kind === 'plan'
          ? ` asks to approve its plan${waiting}:`
          : ` asks to use ${safeText(ask.toolName ?? 'a tool')}${waiting}:`,
      bold: true,
      ...tint(style, 'yellow'),
    },
  ];
  const details =
    ask.kind === 'plan'
      ? ask.description
      : `${ask.description}${ask.input === undefined ? '' : `\n${ask.input}`}`;
  const body = wrappedRows(details, width - 2).map((row) => [{ text: '  ' }, ...row]);
  const shownBody =
    body.length > bodyLimit
      ? [
          ...body.slice(0, Math.max(0, bodyLimit - 1)),
          [{ text: `  … ${body.length - bodyLimit + 1} more lines`, dim: true }] as Row,
        ]
      : body;
  const typing = keyboard.reason !== undefined && keyboard.reason.askId === ask.askId;
  const answer: Row = typing
    ? [
        {
          text:
            ask.kind === 'plan'
              ? 'Feedback for the teammate: '
              : 'Reason for the denial (optional): ',
          bold: true,
        },
        { text: keyboard.reason?.text ?? '' },
        { text: '_', inverse: style.color },
        { text: '  Enter: send  Esc: back', dim: true },
      ]
    : ask.kind === 'plan'
      ? [
          {
            text: 'y: approve   n: reject with feedback   l: later',
            bold: true,
            ...tint(style, 'cyan'),
          },
        ]
      : [
          {
            text: 'y: allow once  a: allow for the session  n: deny  l: later',
            bold: true,
            ...tint(style, 'cyan'),
          },
        ];
  return [title, ...shownBody.slice(0, bodyLimit), answer];
}

/** The prompt line: who gets what is typed, and the text with a cursor. */
export function promptRow(keyboard: KeyboardState, style: TerminalStyle, width: number): Row {
  const target = keyboard.selected === LEAD_NAME ? 'lead' : safeText(keyboard.selected);
  const prefix = `${target}> `;
  const room = Math.max(1, width - prefix.length - 1);
  // Show the end of a long input (the part being typed).
  const characters = [...keyboard.input];
  const visible =
    characters.length > room
      ? characters.slice(characters.length - room + 1).join('')
      : keyboard.input;
  return [
    { text: prefix, bold: true, ...tint(style, 'cyan') },
    { text: characters.length > room ? `${style.unicode ? '…' : '~'}${visible}` : visible },
    { text: style.color ? ' ' : '_', inverse: style.color },
  ];
}

/** The key hints (or the hint after a wrong key). */
export function hintRow(
  keyboard: KeyboardState,
  style: TerminalStyle,
  options: {
    leadTurnRunning: boolean;
    selectedIsLead: boolean;
    asking: boolean;
    /** Asks put aside with `l` (none is shown). */
    asideAsks?: number;
  },
): Row {
  if (keyboard.hint !== undefined) {
    return [{ text: keyboard.hint, bold: true, ...tint(style, 'yellow') }];
  }
  const aside = options.asideAsks ?? 0;
  const escape = options.leadTurnRunning ? '  Esc: interrupt the lead' : '';
  if (aside > 0) {
    return [
      {
        text: `${aside} request${aside === 1 ? '' : 's'} waiting: Ctrl-R to answer`,
        bold: true,
        ...tint(style, 'yellow'),
      },
      { text: `${escape}  Enter: send  Tab: select  Ctrl-C: quit`, dim: true },
    ];
  }
  const first = options.asking
    ? 'Tab: see who asks'
    : options.selectedIsLead
      ? 'Enter: send to the lead'
      : 'Enter: message the teammate';
  return [
    {
      text: `${first}${escape}  Ctrl-O: tool results  PgUp/PgDn: scroll  Ctrl-C: quit`,
      dim: true,
    },
  ];
}
