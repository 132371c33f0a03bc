import { render } from 'ink-testing-library';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { PLAIN_STYLE } from '../terminal-style.js';
import { copyReferenceState } from '../test-support/reference.js';
import { Dashboard } from './dashboard.js';
import { buildDashboardModel, type DashboardModel, type FeedEntry } from './dashboard-model.js';
import { loadTeamSnapshot } from './load-team-snapshot.js';

const DOWN = '\u001B[B';
const PAGE_DOWN = '\u001B[6~';
const END = '\u001B[F';
const HOME = '\u001B[H';
const TAB = '\t';

/** A 200,000-character message: numbered words, so every part of it can be recognised. */
function longText(): string {
  let text = '';
  for (let index = 0; text.length < 200_000; index += 1) {
    text += index % 97 === 0 ? `\n\nparagraph-${index} ` : `word${index} `;
  }
  return text.slice(0, 200_000);
}

async function modelWithLongMessage(text: string): Promise<DashboardModel> {
  const root = await copyReferenceState('06-all-teammates-spawned');
  const model = buildDashboardModel(await loadTeamSnapshot(root, 'conf-team'));
  const entry: FeedEntry = {
    key: 'alpha#99',
    timestamp: new Date().toISOString(),
    from: 'alpha',
    fromColor: 'blue',
    recipients: ['team-lead'],
    kind: 'text',
    sentence: 'alpha to team-lead: a long message',
    detail: text,
    read: false,
    signed: false,
  };
  return { ...model, feed: [...model.feed, entry] };
}

async function frameWhere(lastFrame: () => string | undefined, check: (frame: string) => boolean) {
  for (let waited = 0; ; waited += 50) {
    const frame = lastFrame() ?? '';
    if (check(frame) || waited >= 20_000) return frame;
    await sleep(50);
  }
}

describe('the detail view of a 200,000-character message', () => {
  it('opens, scrolls by line, page, home and end, and quits with q', async () => {
    const text = longText();
    expect(text.length).toBe(200_000);
    const model = await modelWithLongMessage(text);
    let quit = 0;
    const { lastFrame, stdin } = render(
      <Dashboard
        model={model}
        style={PLAIN_STYLE}
        interactive
        rows={30}
        columns={100}
        onQuit={() => (quit += 1)}
      />,
    );
    const waitFor = (text: string) => frameWhere(lastFrame, (frame) => frame.includes(text));
    await waitFor('Tasks (0/3 done) ->');
    stdin.write(TAB);
    await waitFor('Messages (2) ->');
    stdin.write('\r');
    const opened = await waitFor('Message from alpha');
    expect(opened).toContain('Message from alpha');
    expect(opened).toContain('word1 word2 word3');
    // Only a window of lines is drawn: the frame stays the terminal's size.
    expect(opened.split('\n').length).toBeLessThanOrEqual(30);
    const position = (frame: string) => /lines (\d+)-(\d+) of (\d+)/.exec(frame);
    const first = position(opened);
    expect(first?.[1]).toBe('1');
    const total = Number(first?.[3]);
    expect(total).toBeGreaterThan(2_000);

    stdin.write(DOWN);
    expect(position(await waitFor('lines 2-'))?.[1]).toBe('2');
    stdin.write(PAGE_DOWN);
    const paged = await frameWhere(lastFrame, (frame) => Number(position(frame)?.[1]) > 2);
    expect(Number(position(paged)?.[1])).toBeGreaterThan(10);
    stdin.write(END);
    const end = await waitFor(`of ${total}`);
    const atEnd = await frameWhere(lastFrame, (frame) => position(frame)?.[2] === String(total));
    expect(position(atEnd)?.[2]).toBe(String(total));
    expect(atEnd).toContain(text.slice(-20).trim().split(' ').at(-1)!);
    expect(end).toBeDefined();
    stdin.write(HOME);
    expect(position(await waitFor('lines 1-'))?.[1]).toBe('1');

    stdin.write('q');
    for (let waited = 0; quit === 0 && waited < 20_000; waited += 50) await sleep(50);
    expect(quit).toBe(1);
  }, 60_000);

  it('wraps long lines at the width without losing or garbling characters', async () => {
    const line = Array.from({ length: 400 }, (_, index) => `w${index}`).join(' ');
    const model = await modelWithLongMessage(line);
    const { lastFrame, stdin } = render(
      <Dashboard model={model} style={PLAIN_STYLE} interactive rows={200} columns={60} />,
    );
    await frameWhere(lastFrame, (frame) => frame.includes('Tasks (0/3 done) ->'));
    stdin.write(TAB);
    stdin.write('\r');
    const opened = await frameWhere(lastFrame, (frame) => frame.includes('Message from alpha'));
    const bodyWords = opened
      .split('\n')
      .map((row) => row.replace(/^[|+]\s?/, '').replace(/\s?[|+]$/, ''))
      .join(' ')
      .split(/\s+/)
      .filter((word) => /^w\d+$/.test(word));
    // Every word once, in order: wrapped, not cut or overlapped.
    expect(bodyWords.slice(0, 400)).toEqual(line.split(' '));
    for (const row of opened.split('\n').filter((row) => /^[|+]/.test(row))) {
      expect(row.length).toBeLessThanOrEqual(60);
    }
  }, 60_000);

  it('lists a few problems under the panes and counts the rest, keeping the panes on screen', async () => {
    const model = await modelWithLongMessage('short');
    const problems = Array.from({ length: 50 }, (_, index) => `inbox ${index} does not parse`);
    const { lastFrame } = render(
      <Dashboard
        model={{ ...model, problems }}
        style={PLAIN_STYLE}
        interactive
        rows={30}
        columns={100}
      />,
    );
    const frame = await frameWhere(lastFrame, (text) => text.includes('Members (4)'));
    expect(frame).toContain('inbox 0 does not parse');
    expect(frame).toContain('and 48 more problems: run muster doctor');
    expect(frame).not.toContain('inbox 2 does not parse');
    expect(frame).toContain('Messages (2)');
    expect(frame.split('\n').length).toBeLessThanOrEqual(30);
  }, 60_000);
});
