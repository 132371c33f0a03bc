import { describe, expect, it } from 'vitest';
import { INITIAL_NAVIGATION, navigate } from './dashboard.js';

const counts = { members: 4, tasks: 3, messages: 5 };

describe('navigate', () => {
  it('cycles panes with tab, shift+tab and the arrows', () => {
    const tab = navigate(INITIAL_NAVIGATION, { tab: true }, counts);
    expect(tab.focus).toBe('messages');
    expect(navigate(tab, { tab: true }, counts).focus).toBe('members');
    expect(navigate(INITIAL_NAVIGATION, { tab: true, shift: true }, counts).focus).toBe('members');
    expect(navigate(INITIAL_NAVIGATION, { leftArrow: true }, counts).focus).toBe('members');
  });

  it('moves the selection within bounds, and keeps the feed following the newest at its end', () => {
    const down = navigate(
      navigate(INITIAL_NAVIGATION, { downArrow: true }, counts),
      { downArrow: true },
      counts,
    );
    expect(down.selection.tasks).toBe(2);
    expect(navigate(down, { downArrow: true }, counts).selection.tasks).toBe(2);
    const messages = navigate(INITIAL_NAVIGATION, { tab: true }, counts);
    const up = navigate(messages, { upArrow: true }, counts);
    expect(up.selection.messages).toBe(3);
    expect(navigate(up, { downArrow: true }, counts).selection.messages).toBe(
      Number.MAX_SAFE_INTEGER,
    );
  });

  it('opens a detail with enter only when the pane has rows, and closes it with esc or enter', () => {
    const open = navigate(INITIAL_NAVIGATION, { return: true }, counts);
    expect(open.detail).toBe(true);
    expect(navigate(open, { tab: true }, counts)).toBe(open);
    expect(navigate(open, { escape: true }, counts).detail).toBe(false);
    expect(navigate(open, { return: true }, counts).detail).toBe(false);
    expect(navigate(INITIAL_NAVIGATION, { return: true }, { ...counts, tasks: 0 }).detail).toBe(
      false,
    );
  });
});
