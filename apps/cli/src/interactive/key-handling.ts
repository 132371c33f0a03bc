// What each key does in the interactive app, as a pure function of the screen's state: the
// prompt line, the selected agent, answering the oldest ask, scrolling, and the commands the
// app carries out (prompt the lead, message a teammate, answer an ask, interrupt, stop).
import type { AskView } from './session-model.js';
import { LEAD_NAME } from './session-model.js';

/** The keys the app reads (a subset of ink's `Key`). */
export interface AppKey {
  ctrl?: boolean;
  shift?: boolean;
  meta?: boolean;
  tab?: boolean;
  escape?: boolean;
  return?: boolean;
  backspace?: boolean;
  delete?: boolean;
  upArrow?: boolean;
  downArrow?: boolean;
  leftArrow?: boolean;
  rightArrow?: boolean;
  pageUp?: boolean;
  pageDown?: boolean;
  home?: boolean;
  end?: boolean;
}

/** The keyboard's state: what is typed, who is selected, how the conversation is scrolled. */
export interface KeyboardState {
  /** The agent whose conversation is shown and who gets what is typed. */
  selected: string;
  /** The prompt line. */
  input: string;
  /** Set while the person types the reason of a denial or a plan's feedback. */
  reason?: { askId: string; text: string };
  /** Tool results are shown under each tool call (Ctrl-O). */
  showResults: boolean;
  /** Rows scrolled up from the newest (0 follows the conversation). */
  scroll: number;
  /** A one-line hint for the person after a key that did nothing (wrong input). */
  hint?: string;
  /** Asks the person put aside (`l`, later): not shown until Ctrl-R. */
  later: readonly string[];
}

/** What the app must do after a key. */
export type KeyCommand =
  | { type: 'prompt'; text: string }
  | { type: 'message'; to: string; text: string }
  | {
      type: 'answer';
      askId: string;
      behavior: 'allow' | 'deny';
      scope?: 'once' | 'always';
      message?: string;
    }
  | { type: 'interrupt' }
  | { type: 'stop' };

/** The ask to answer now: the oldest waiting one the person did not put aside. */
export function currentAsk<T extends { askId: string }>(
  asks: readonly T[],
  keyboard: KeyboardState,
): T | undefined {
  return asks.find((ask) => !keyboard.later.includes(ask.askId));
}

/** What the key handler needs to know besides its own state. */
export interface KeyContext {
  /** The agents that can be selected (the lead first). */
  agents: readonly string[];
  /** The ask the person answers now (the oldest waiting that was not put aside), if any. */
  ask?: AskView;
  /** How many asks wait, those put aside included. */
  waitingAsks: number;
  /** The lead's turn is running (Esc interrupts it). */
  leadTurnRunning: boolean;
  /** The team is shutting down: only Ctrl-C, selection and scrolling still act. */
  stopping: boolean;
  /** Rows the conversation shows at once (a page for PageUp/PageDown). */
  pageRows: number;
}

/** The state before any key. */
export const INITIAL_KEYBOARD: KeyboardState = {
  selected: LEAD_NAME,
  input: '',
  showResults: false,
  scroll: 0,
  later: [],
};

/** Printable characters of what ink passed as input (controls dropped, line feeds as spaces). */
export function printable(input: string): string {
  let text = '';
  for (const character of input.replace(/\r\n|\r|\n/g, ' ')) {
    const code = character.codePointAt(0) ?? 0;
    if (code >= 0x20 && code !== 0x7f && !(code >= 0x80 && code <= 0x9f)) text += character;
  }
  return text;
}

function select(state: KeyboardState, agents: readonly string[], step: number): KeyboardState {
  const index = Math.max(0, agents.indexOf(state.selected));
  const count = Math.max(1, agents.length);
  const next = agents[(((index + step) % count) + count) % count] ?? LEAD_NAME;
  const { hint: _hint, ...rest } = state;
  return { ...rest, selected: next, scroll: 0 };
}

function withHint(state: KeyboardState, hint: string | undefined): KeyboardState {
  const { hint: _previous, ...rest } = state;
  return hint === undefined ? rest : { ...rest, hint };
}

/** Keys every mode shares: selection and scrolling. Undefined when the key is not one of them. */
function navigation(
  state: KeyboardState,
  key: AppKey,
  context: KeyContext,
): KeyboardState | undefined {
  if (key.tab) return select(state, context.agents, key.shift ? -1 : 1);
  if (key.rightArrow) return select(state, context.agents, 1);
  if (key.leftArrow) return select(state, context.agents, -1);
  const page = Math.max(1, context.pageRows - 1);
  if (key.upArrow) return withHint({ ...state, scroll: state.scroll + 1 }, undefined);
  if (key.pageUp) return withHint({ ...state, scroll: state.scroll + page }, undefined);
  if (key.downArrow)
    return withHint({ ...state, scroll: Math.max(0, state.scroll - 1) }, undefined);
  if (key.pageDown)
    return withHint({ ...state, scroll: Math.max(0, state.scroll - page) }, undefined);
  if (key.end) return withHint({ ...state, scroll: 0 }, undefined);
  return undefined;
}

function editText(text: string, input: string, key: AppKey): string | undefined {
  if (key.backspace || key.delete) return [...text].slice(0, -1).join('');
  if (key.ctrl && input === 'u') return '';
  if (key.ctrl || key.meta) return undefined;
  const added = printable(input);
  return added === '' ? undefined : text + added;
}

function answerKey(
  state: KeyboardState,
  input: string,
  key: AppKey,
  ask: AskView,
): { state: KeyboardState; command?: KeyCommand } {
  if (state.reason !== undefined && state.reason.askId === ask.askId) {
    if (key.escape) {
      const { reason: _reason, ...rest } = state;
      return { state: withHint(rest, undefined) };
    }
    if (key.return) {
      const text = state.reason.text.trim();
      if (ask.kind === 'plan' && text === '') {
        return { state: withHint(state, 'Type what the teammate should change, then Enter.') };
      }
      const { reason: _reason, ...rest } = state;
      return {
        state: withHint(rest, undefined),
        command: {
          type: 'answer',
          askId: ask.askId,
          behavior: 'deny',
          ...(text === '' ? {} : { message: text }),
        },
      };
    }
    const edited = editText(state.reason.text, input, key);
    if (edited === undefined) return { state };
    return { state: withHint({ ...state, reason: { askId: ask.askId, text: edited } }, undefined) };
  }
  const choice = key.ctrl || key.meta ? '' : input.toLowerCase();
  const allowKeys = ask.kind === 'plan' ? 'y (approve), n (reject) or l (later)' : 'y, a, n or l';
  if (choice === 'y') {
    return {
      state: withHint(state, undefined),
      command: { type: 'answer', askId: ask.askId, behavior: 'allow', scope: 'once' },
    };
  }
  if (choice === 'a' && ask.kind === 'permission') {
    return {
      state: withHint(state, undefined),
      command: { type: 'answer', askId: ask.askId, behavior: 'allow', scope: 'always' },
    };
  }
  if (choice === 'n') {
    return { state: withHint({ ...state, reason: { askId: ask.askId, text: '' } }, undefined) };
  }
  if (choice === 'l') {
    return { state: withHint({ ...state, later: [...state.later, ask.askId] }, undefined) };
  }
  if (key.return || printable(input) !== '') {
    return { state: withHint(state, `Answer the request first: press ${allowKeys}.`) };
  }
  return { state };
}

/**
 * Handles one key: returns the next state and, when the key asks for it, a command for the
 * app. Ctrl-C is always `stop`; Esc interrupts the lead's turn (or leaves typing a reason).
 */
export function handleKey(
  state: KeyboardState,
  input: string,
  key: AppKey,
  context: KeyContext,
): { state: KeyboardState; command?: KeyCommand } {
  if (key.ctrl && input === 'c') return { state, command: { type: 'stop' } };
  // Several Tabs in one chunk: as many steps.
  if (/^\t{2,}$/.test(input)) {
    return { state: select(state, context.agents, (key.shift ? -1 : 1) * input.length) };
  }
  // Text and Enter in one chunk (typed fast, or sent together): the text, then Enter. Line
  // breaks inside it stay spaces (a pasted paragraph is one message).
  if (input.length > 1 && /[\r\n]$/.test(input) && !key.ctrl && !key.meta) {
    const typed = handleKey(state, input.replace(/[\r\n]+$/, ''), {}, context);
    return typed.command !== undefined
      ? typed
      : handleKey(typed.state, '\r', { return: true }, context);
  }
  const moved = navigation(state, key, context);
  if (moved !== undefined) return { state: moved };
  if (key.ctrl && input === 'o') {
    return { state: withHint({ ...state, showResults: !state.showResults }, undefined) };
  }
  if (key.ctrl && input === 'r') {
    return {
      state: withHint(
        { ...state, later: [] },
        context.waitingAsks === 0 ? 'No request is waiting.' : undefined,
      ),
    };
  }
  if (context.stopping) {
    return {
      state: withHint(state, 'The team is shutting down; Ctrl-C again ends everything now.'),
    };
  }
  const inReason = state.reason !== undefined && state.reason.askId === context.ask?.askId;
  if (key.escape && !inReason) {
    if (context.leadTurnRunning) {
      return { state: withHint(state, undefined), command: { type: 'interrupt' } };
    }
    return {
      state: withHint({ ...state, input: '' }, 'The lead is not working: nothing to interrupt.'),
    };
  }
  if (context.ask !== undefined) return answerKey(state, input, key, context.ask);
  // A line feed is Enter too: keys typed before the app took the terminal arrive cooked.
  if (key.return || input === '\n') {
    const text = state.input.trim();
    if (text === '') return { state: withHint(state, 'Type a message first, then Enter.') };
    const next = withHint({ ...state, input: '', scroll: 0 }, undefined);
    if (state.selected === LEAD_NAME) return { state: next, command: { type: 'prompt', text } };
    return { state: next, command: { type: 'message', to: state.selected, text } };
  }
  const edited = editText(state.input, input, key);
  if (edited === undefined) return { state };
  return { state: withHint({ ...state, input: edited }, undefined) };
}
