import { describe, expect, it } from 'vitest';
import {
  currentAsk,
  handleKey,
  INITIAL_KEYBOARD,
  type AppKey,
  type KeyContext,
  type KeyboardState,
} from './key-handling.js';
import type { AskView } from './session-model.js';

const context: KeyContext = {
  agents: ['team-lead', 'alice', 'bob'],
  leadTurnRunning: false,
  stopping: false,
  pageRows: 10,
  waitingAsks: 0,
};
const permission: AskView = {
  askId: 'ask-1',
  kind: 'permission',
  agentName: 'alice',
  toolName: 'Bash',
  description: 'Bash',
};
const plan: AskView = { askId: 'ask-2', kind: 'plan', agentName: 'bob', description: '# Plan' };

/** Presses each key in turn; returns the last state and every command. */
function press(
  keys: (string | [string, AppKey])[],
  options: Partial<KeyContext> = {},
  start: KeyboardState = INITIAL_KEYBOARD,
) {
  let state = start;
  const commands = [];
  for (const key of keys) {
    const [input, flags] = typeof key === 'string' ? [key, {}] : key;
    const result = handleKey(state, input, flags, { ...context, ...options });
    state = result.state;
    if (result.command !== undefined) commands.push(result.command);
  }
  return { state, commands };
}

const ENTER: [string, AppKey] = ['\r', { return: true }];
const ESCAPE: [string, AppKey] = ['', { escape: true }];
const TAB: [string, AppKey] = ['\t', { tab: true }];
const BACKSPACE: [string, AppKey] = ['', { backspace: true }];
const CTRL_C: [string, AppKey] = ['c', { ctrl: true }];

describe('keys of the interactive app', () => {
  it('typing and Enter prompt the lead; an empty line only hints', () => {
    expect(press(['h', 'i', 'x', BACKSPACE, ENTER]).commands).toEqual([
      { type: 'prompt', text: 'hi' },
    ]);
    const empty = press([ENTER]);
    expect(empty.commands).toEqual([]);
    expect(empty.state.hint).toMatch(/Type a message first/);
  });

  it('Tab and Shift-Tab select teammates; Enter then messages the selected teammate', () => {
    expect(press([TAB, TAB]).state.selected).toBe('bob');
    expect(press([TAB, TAB, TAB]).state.selected).toBe('team-lead');
    expect(press([['\t', { tab: true, shift: true }]]).state.selected).toBe('bob');
    expect(press([['', { rightArrow: true }]]).state.selected).toBe('alice');
    // Two Tabs in one chunk are two steps.
    expect(press(['\t\t']).state.selected).toBe('bob');
    expect(press([TAB, 'go', ENTER]).commands).toEqual([
      { type: 'message', to: 'alice', text: 'go' },
    ]);
  });

  it('text and Enter arriving in one chunk are the text, then Enter (also for a reason)', () => {
    expect(press(['hello\r']).commands).toEqual([{ type: 'prompt', text: 'hello' }]);
    expect(press(['two\nlines\r']).commands).toEqual([{ type: 'prompt', text: 'two lines' }]);
    expect(press(['n', 'Also cover emoji\r'], { ask: plan }).commands).toEqual([
      { type: 'answer', askId: 'ask-2', behavior: 'deny', message: 'Also cover emoji' },
    ]);
  });

  it('control characters in pasted text are dropped', () => {
    expect(press(['a\u001b[2Jb\u0007c', ENTER]).commands).toEqual([
      { type: 'prompt', text: 'a[2Jbc' },
    ]);
  });

  it('a permission ask: y allows once, a allows for the session, n takes a reason', () => {
    const ask = { ask: permission };
    expect(press(['y'], ask).commands).toEqual([
      { type: 'answer', askId: 'ask-1', behavior: 'allow', scope: 'once' },
    ]);
    expect(press(['a'], ask).commands).toEqual([
      { type: 'answer', askId: 'ask-1', behavior: 'allow', scope: 'always' },
    ]);
    expect(press(['n', 'n', 'o', ENTER], ask).commands).toEqual([
      { type: 'answer', askId: 'ask-1', behavior: 'deny', message: 'no' },
    ]);
    // Esc leaves the reason without answering.
    const back = press(['n', 'x', ESCAPE], ask);
    expect(back.commands).toEqual([]);
    expect(back.state.reason).toBeUndefined();
  });

  it('a wrong key during an ask answers nothing and says which keys answer', () => {
    const wrong = press(['q', ENTER], { ask: permission });
    expect(wrong.commands).toEqual([]);
    expect(wrong.state.hint).toBe('Answer the request first: press y, a, n or l.');
    // "a" (for the session) is no answer to a plan.
    expect(press(['a'], { ask: plan }).commands).toEqual([]);
  });

  it('l puts the ask aside (the prompt line works again); Ctrl-R brings every waiting ask back', () => {
    const aside = press(['l'], { ask: permission, waitingAsks: 1 });
    expect(aside.state.later).toEqual(['ask-1']);
    expect(currentAsk([permission, plan], aside.state)).toEqual(plan);
    expect(currentAsk([permission], aside.state)).toBeUndefined();
    // With no ask shown, typing goes to the prompt line again.
    expect(press(['yes', ENTER], { waitingAsks: 1 }, aside.state).commands).toEqual([
      { type: 'prompt', text: 'yes' },
    ]);
    const back = press([['r', { ctrl: true }]], { waitingAsks: 1 }, aside.state);
    expect(back.state.later).toEqual([]);
    expect(press([['r', { ctrl: true }]]).state.hint).toBe('No request is waiting.');
  });

  it('a plan is rejected only with feedback', () => {
    const empty = press(['n', ENTER], { ask: plan });
    expect(empty.commands).toEqual([]);
    expect(empty.state.hint).toMatch(/Type what the teammate should change/);
    expect(press(['n', 'Test empty text', ENTER], { ask: plan }).commands).toEqual([
      { type: 'answer', askId: 'ask-2', behavior: 'deny', message: 'Test empty text' },
    ]);
    expect(press(['y'], { ask: plan }).commands).toEqual([
      { type: 'answer', askId: 'ask-2', behavior: 'allow', scope: 'once' },
    ]);
  });

  it('Esc interrupts the lead only while its turn runs', () => {
    expect(press([ESCAPE], { leadTurnRunning: true }).commands).toEqual([{ type: 'interrupt' }]);
    const idle = press([ESCAPE]);
    expect(idle.commands).toEqual([]);
    expect(idle.state.hint).toMatch(/nothing to interrupt/);
  });

  it('Ctrl-C stops from anywhere, also while a reason is typed; stopping ignores typing', () => {
    expect(press(['n', 'x', CTRL_C], { ask: permission }).commands).toEqual([{ type: 'stop' }]);
    const stopping = press(['h', ENTER, CTRL_C], { stopping: true });
    expect(stopping.commands).toEqual([{ type: 'stop' }]);
    expect(stopping.state.input).toBe('');
  });

  it('arrows and pages scroll the conversation; Ctrl-O shows tool results', () => {
    const scrolled = press([
      ['', { upArrow: true }],
      ['', { pageUp: true }],
    ]);
    expect(scrolled.state.scroll).toBe(10);
    expect(press([['', { end: true }]], {}, scrolled.state).state.scroll).toBe(0);
    expect(press([['o', { ctrl: true }]]).state.showResults).toBe(true);
  });
});
