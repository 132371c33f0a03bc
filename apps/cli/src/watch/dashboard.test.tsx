import { render } from 'ink-testing-library';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { PLAIN_STYLE, type TerminalStyle } from '../terminal-style.js';
import { copyReferenceState } from '../test-support/reference.js';
import { Dashboard } from './dashboard.js';
import { buildDashboardModel, type DashboardModel } from './dashboard-model.js';
import { loadTeamSnapshot } from './load-team-snapshot.js';
import { FeedPane, MembersPane, TasksPane, visibleWindow } from './panes.js';
import { hasNonAscii } from '../test-support/run-cli.js';

const UNICODE: TerminalStyle = { color: false, unicode: true };
const DOWN = '\u001B[B';
const RIGHT = '\u001B[C';
const ESCAPE = '\u001B';

async function referenceModel(state: '06-all-teammates-spawned' | '11-all-shutdowns-approved') {
  const root = await copyReferenceState(state);
  return buildDashboardModel(await loadTeamSnapshot(root, 'conf-team'));
}

/** Lets ink process input and re-render. */
const settle = () => sleep(30);

/** Waits (up to 5 s) until the last frame satisfies the check; returns it. */
async function frameWhere(lastFrame: () => string | undefined, check: (frame: string) => boolean) {
  for (let waited = 0; ; waited += 20) {
    const frame = lastFrame() ?? '';
    if (check(frame) || waited >= 5_000) return frame;
    await sleep(20);
  }
}

describe('dashboard components', () => {
  it('MembersPane lists each member with backend and state', async () => {
    const model = await referenceModel('06-all-teammates-spawned');
    const { lastFrame } = render(
      <MembersPane members={model.members} style={PLAIN_STYLE} focused={false} selected={0} />,
    );
    const frame = lastFrame() ?? '';
    // A Claude Code team recorded long ago: no process known, no recent message.
    expect(frame).toMatch(/\* team-lead\s+lead\s+unknown/);
    expect(frame).toMatch(/\* alpha\s+in-process\s+unknown/);
    expect(frame).toContain('Members (4)');
  });

  it('TasksPane shows the active form with a spinner while in progress, and what blocks a task', async () => {
    const model = await referenceModel('06-all-teammates-spawned');
    const memberColors = new Map(model.members.map((member) => [member.name, member.color]));
    const props = {
      tasks: model.tasks,
      hiddenTaskCount: model.hiddenTaskCount,
      memberColors,
      focused: false,
      selected: 0,
    };
    const first = render(<TasksPane {...props} style={UNICODE} frame={0} />).lastFrame() ?? '';
    expect(first).toContain(
      '⠋ #1 Implement greeting module · Implementing greeting module… @alpha',
    );
    expect(first).toContain('⊘ #2 Test greeting module · blocked by #1');
    expect(first).toContain('⊘ #3 Document greeting module · blocked by #2');
    const next = render(<TasksPane {...props} style={UNICODE} frame={1} />).lastFrame() ?? '';
    expect(next).toContain('⠙ #1');
    const plain = render(<TasksPane {...props} style={PLAIN_STYLE} frame={0} />).lastFrame() ?? '';
    expect(plain).toContain(
      '| #1 Implement greeting module - Implementing greeting module... @alpha',
    );
    expect(plain).toContain('[!] #2 Test greeting module - blocked by #1');
    expect(hasNonAscii(plain)).toBe(false);
  });

  it('FeedPane shows protocol messages in words, not JSON', async () => {
    const model = await referenceModel('11-all-shutdowns-approved');
    const { lastFrame } = render(
      <FeedPane
        feed={model.feed}
        style={PLAIN_STYLE}
        focused={false}
        selected={model.feed.length - 1}
        capacity={40}
      />,
    );
    const frame = lastFrame() ?? '';
    expect(frame).toContain("beta's plan was rejected: Please also cover the empty-name case.");
    expect(frame).toContain('gamma agreed to shut down');
    expect(frame).not.toContain('{"type"');
  });

  it('keeps the selected row in view', () => {
    expect(visibleWindow(10, 9, 4)).toEqual([6, 10]);
    expect(visibleWindow(10, 0, 4)).toEqual([0, 4]);
    expect(visibleWindow(3, 2, 10)).toEqual([0, 3]);
  });

  it('Dashboard moves between panes with tab and arrows, opens items with enter and goes back', async () => {
    const model = await referenceModel('06-all-teammates-spawned');
    const { lastFrame, stdin } = render(
      <Dashboard model={model} style={PLAIN_STYLE} interactive rows={40} />,
    );
    const waitFor = (text: string) => frameWhere(lastFrame, (frame) => frame.includes(text));
    expect(await waitFor('Tasks (0/3 done) ->')).toContain('Tasks (0/3 done) ->');
    stdin.write(DOWN);
    expect(await frameWhere(lastFrame, (frame) => frame.includes('>[!] #2'))).toContain('>[!] #2');
    stdin.write('\r');
    const detail = await waitFor('Task #2: Test greeting module');
    expect(detail).toContain('Task #2: Test greeting module');
    expect(detail).toMatch(/blocked by\s+#1/);
    expect(detail).toContain('Write tests for greet(name)');
    stdin.write('\r');
    expect(await waitFor('Members (4)')).not.toContain('Task #2: Test greeting module');
    stdin.write('\t');
    expect(await waitFor('Messages (1) ->')).toContain('Messages (1) ->');
    stdin.write('\r');
    const message = await waitFor('Message from alpha');
    expect(message).toContain('alpha took task #1: Implement greeting module');
    expect(message).toContain('task_assignment');
    stdin.write(ESCAPE);
    expect(await waitFor('Members (4)')).not.toContain('Message from alpha');
    stdin.write(RIGHT);
    expect(await waitFor('Members (4) ->')).toContain('Members (4) ->');
    stdin.write('\r');
    expect(await waitFor('Member team-lead')).toContain('Member team-lead');
  });

  it('Dashboard calls onQuit when q is pressed', async () => {
    const model: DashboardModel = await referenceModel('06-all-teammates-spawned');
    let quit = 0;
    const { stdin } = render(
      <Dashboard
        model={model}
        style={PLAIN_STYLE}
        interactive
        rows={40}
        onQuit={() => (quit += 1)}
      />,
    );
    await settle();
    stdin.write('q');
    for (let waited = 0; quit === 0 && waited < 5_000; waited += 20) await sleep(20);
    expect(quit).toBe(1);
  });
});
