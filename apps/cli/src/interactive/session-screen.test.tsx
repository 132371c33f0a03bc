import type { TeamEvent } from '@muster/agents';
import { render } from 'ink-testing-library';
import { describe, expect, it } from 'vitest';
import { PLAIN_STYLE, type TerminalStyle } from '../terminal-style.js';
import {
  containsRawHostileCharacters,
  HOSTILE_TEXT,
  HOSTILE_TEXT_ESCAPED,
} from '../test-support/hostile-text.js';
import { tasksEvent } from '../test-support/team-events.js';
import { displayWidth } from '../watch/text-layout.js';
import { INITIAL_KEYBOARD, type KeyboardState } from './key-handling.js';
import { SCRIPTED_DEMO_BANNER, SHORT_DEMO_BANNER } from './panel-rows.js';
import { SessionScreen } from './session-screen.js';
import {
  initialSessionModel,
  LEAD_NAME,
  reduceSession,
  type SessionAction,
  type SessionModel,
} from './session-model.js';

const UNICODE: TerminalStyle = { color: false, unicode: true };
const COLOR: TerminalStyle = { color: true, unicode: true };
const at = 1;

function teamModel(extra: SessionAction[] = [], scriptedDemo = true): SessionModel {
  const event = (value: TeamEvent): SessionAction => ({ type: 'event', event: value });
  const actions: SessionAction[] = [
    { type: 'person', to: LEAD_NAME, text: 'Add slugify() with tests and docs.' },
    ...['alice', 'bob', 'carol'].map((name, index) =>
      event({
        type: 'spawn',
        path: 'teammate',
        agentName: name,
        agentType: 'general-purpose',
        parentName: LEAD_NAME,
        backendType: index === 2 ? 'pty' : 'in-process',
        at,
      }),
    ),
    event({ type: 'member_state', agentName: 'alice', state: 'working', at }),
    event({ type: 'member_state', agentName: 'bob', state: 'awaiting_plan_approval', at }),
    event(
      tasksEvent('slugify-team', [
        {
          id: '1',
          subject: 'Implement slugify()',
          status: 'in_progress',
          owner: 'alice',
          activeForm: 'Implementing slugify()',
        },
        { id: '2', subject: 'Write tests for slugify()', status: 'pending' },
        { id: '3', subject: 'Document slugify() in README.md', status: 'pending' },
        { id: '4', subject: 'Review', status: 'completed', owner: 'carol' },
      ]),
    ),
    {
      type: 'roster',
      members: [
        { name: 'alice', backendType: 'in-process', color: 'blue' },
        { name: 'bob', backendType: 'in-process', color: 'green' },
        { name: 'carol', backendType: 'pty', color: 'yellow' },
      ],
      status: {
        model: 'sonnet',
        permissionMode: 'acceptEdits',
        teamName: 'slugify-team',
        unpricedAgents: [],
      },
    },
    ...Array.from({ length: 30 }, (_, index) =>
      event({
        type: 'agent',
        agentName: LEAD_NAME,
        event: {
          type: 'tool_call_start',
          toolUseId: `t${index}`,
          name: 'TaskCreate',
          input: {
            subject: `a task with a rather long subject number ${index} that does not fit on one row of eighty`,
          },
        },
        at,
      }),
    ),
    ...extra,
  ];
  return actions.reduce(
    reduceSession,
    initialSessionModel({ scriptedDemo, model: 'sonnet', permissionMode: 'acceptEdits' }),
  );
}

function frameOf(
  model: SessionModel,
  options: {
    keyboard?: KeyboardState;
    style?: TerminalStyle;
    rows?: number;
    columns?: number;
  } = {},
): string {
  const { lastFrame, unmount } = render(
    <SessionScreen
      model={model}
      keyboard={options.keyboard ?? INITIAL_KEYBOARD}
      style={options.style ?? UNICODE}
      rows={options.rows ?? 24}
      columns={options.columns ?? 80}
    />,
  );
  const frame = lastFrame() ?? '';
  unmount();
  return frame;
}

function expectFits(frame: string, rows: number, columns: number) {
  const lines = frame.split('\n');
  expect(lines.length).toBe(rows - 1);
  const wide = lines.filter((line) => displayWidth(line) > columns);
  expect(wide).toEqual([]);
}

const planAsk = (description: string): SessionAction => ({
  type: 'event',
  event: { type: 'ask', askId: 'ask-plan', kind: 'plan', agentName: 'bob', description, at },
});

describe('the interactive screen', () => {
  it('at 80×24: banner, status, every teammate with backend and state, the tasks, the conversation, the prompt line', () => {
    const frame = frameOf(teamModel());
    expectFits(frame, 24, 80);
    const lines = frame.split('\n');
    expect(lines[0]).toBe(SCRIPTED_DEMO_BANNER);
    // The demo's tokens come from a script: no price applies, and no dollar figure is shown.
    expect(lines[1]).toMatch(
      /^team slugify-team · 0 tok \(scripted\) no cost · model sonnet · mode acceptEdits$/,
    );
    expect(frame).not.toContain('$');
    expect(frame).toMatch(/1 alice\s+in-process working\s+0 tok no cost/);
    // With a model, an unpriced one says so.
    const real = frameOf(teamModel([], false)).split('\n');
    expect(real[0]).toMatch(
      /^team slugify-team · 0 tok cost \? · model sonnet · mode acceptEdits$/,
    );
    expect(frame).toMatch(/▸0 team-lead\s+lead\s+idle/);
    expect(frame).toMatch(/1 alice\s+in-process working .* Implementing slugify\(\)/);
    expect(frame).toMatch(/2 bob\s+in-process plan wait/);
    expect(frame).toMatch(/3 carol\s+pty\s+starting/);
    expect(frame).toContain('Tasks (4, 1 done)');
    expect(frame).toContain('◐ #1 Implement slugify() · Implementing slugify() @alice');
    // The newest tool calls, each one line cut at the edge.
    expect(frame).toMatch(/● TaskCreate\(a task with a rather long subject number 29 .*…/);
    expect(lines.at(-2)).toBe('lead> _');
    expect(lines.at(-1)).toMatch(/^Enter: send to the lead/);
  });

  it('with NO_COLOR (a plain style) no escape sequence reaches the terminal; with colors on it fits the same', () => {
    const plain = frameOf(teamModel(), { style: PLAIN_STYLE });
    expect(plain).not.toContain('\u001b[');
    expect(plain).toContain('>0 team-lead');
    expect(plain).toContain('[~] #1 Implement slugify()');
    expectFits(plain, 24, 80);
    const colored = frameOf(teamModel(), { style: COLOR });
    // eslint-disable-next-line no-control-regex -- the SGR sequences ink writes for colors
    expectFits(colored.replace(/\u001b\[[0-9;]*m/g, ''), 24, 80);
  });

  it('a plan ask shows the asking teammate and the plan, cut to leave the conversation room', () => {
    const plan = Array.from({ length: 40 }, (_, index) => `${index + 1}. step ${index + 1}`).join(
      '\n',
    );
    const frame = frameOf(teamModel([planAsk(`# Plan: tests\n${plan}`)]));
    expectFits(frame, 24, 80);
    expect(frame).toContain('[bob] asks to approve its plan:');
    expect(frame).toContain('# Plan: tests');
    expect(frame).toMatch(/… \d+ more lines/);
    expect(frame).toContain('y: approve   n: reject with feedback   l: later');
    const typing = frameOf(teamModel([planAsk('# Plan')]), {
      keyboard: {
        ...INITIAL_KEYBOARD,
        reason: { askId: 'ask-plan', text: 'Test the empty string' },
      },
    });
    expect(typing).toContain('Feedback for the teammate: Test the empty string');
  });

  it('a permission ask shows the badge, the tool, its input and the three answers', () => {
    const model = teamModel([
      {
        type: 'event',
        event: {
          type: 'ask',
          askId: 'ask-1',
          kind: 'permission',
          agentName: 'alice',
          toolName: 'Bash',
          input: { command: 'npm test' },
          description: 'Bash: npm test',
          at,
        },
      },
    ]);
    const frame = frameOf(model);
    expectFits(frame, 24, 80);
    expect(frame).toContain('[alice] asks to use Bash:');
    expect(frame).toContain('command: npm test');
    expect(frame).toContain('y: allow once  a: allow for the session  n: deny  l: later');
    // Put aside: the prompt line is back, and the hint says how to answer it later.
    const aside = frameOf(model, { keyboard: { ...INITIAL_KEYBOARD, later: ['ask-1'] } });
    expect(aside).not.toContain('[alice] asks');
    expect(aside).toContain('lead> _');
    expect(aside).toContain('1 request waiting: Ctrl-R to answer');
  });

  it('selecting a teammate shows its own conversation; a pane teammate says where it runs', () => {
    const model = teamModel([
      {
        type: 'event',
        event: {
          type: 'agent',
          agentName: 'alice',
          event: { type: 'text_delta', text: 'Writing src/slugify.js now.' },
          at,
        },
      },
    ]);
    const alice = frameOf(model, { keyboard: { ...INITIAL_KEYBOARD, selected: 'alice' } });
    expect(alice).toContain('─ alice (in-process): its conversation, live');
    expect(alice).toContain('Writing src/slugify.js now.');
    expect(alice).toContain('alice> ');
    const carol = frameOf(model, { keyboard: { ...INITIAL_KEYBOARD, selected: 'carol' } });
    expect(carol).toContain('carol runs in its own pty process.');
    const screen = frameOf(
      reduceSession(model, {
        type: 'screen',
        agentName: 'carol',
        text: `[scripted demo] carol here: thanks\n${HOSTILE_TEXT}\n\n`,
      }),
      { keyboard: { ...INITIAL_KEYBOARD, selected: 'carol' } },
    );
    expect(screen).toContain('─ carol (pty): its screen, live');
    expect(screen).toContain('[scripted demo] carol here: thanks');
    expect(screen).toContain(HOSTILE_TEXT_ESCAPED);
    expect(containsRawHostileCharacters(screen)).toBe(false);
  });

  it('hostile text from the model, a teammate or disk is shown escaped, never raw', () => {
    const hostile = HOSTILE_TEXT;
    const event = (value: TeamEvent): SessionAction => ({ type: 'event', event: value });
    const model = teamModel([
      event({
        type: 'spawn',
        path: 'teammate',
        agentName: `evil${hostile}`,
        agentType: hostile,
        parentName: LEAD_NAME,
        backendType: hostile,
        at,
      }),
      event({
        type: 'agent',
        agentName: LEAD_NAME,
        event: { type: 'text_delta', text: hostile },
        at,
      }),
      event({ type: 'message', from: 'alice', to: LEAD_NAME, text: hostile, at }),
      event({ type: 'notice', level: 'warning', text: hostile, at }),
      planAsk(hostile),
    ]);
    for (const style of [UNICODE, COLOR]) {
      const frame = frameOf({ ...model, teamName: hostile }, { style, rows: 40, columns: 120 });
      expect(containsRawHostileCharacters(frame)).toBe(false);
      expect(frame).toContain(HOSTILE_TEXT_ESCAPED);
    }
  });

  it('a small pane (40×14, a tmux split) keeps the banner, the ask, its answers and the hints', () => {
    const model = teamModel([
      planAsk(`# Plan: tests\n${'step\n'.repeat(30)}`),
      {
        type: 'event',
        event: { type: 'notice', level: 'info', text: 'a notice', at },
      },
    ]);
    for (const keyboard of [INITIAL_KEYBOARD, { ...INITIAL_KEYBOARD, selected: 'carol' }]) {
      const frame = frameOf(model, { keyboard, rows: 14, columns: 40 });
      expectFits(frame, 14, 40);
      const lines = frame.split('\n');
      expect(lines[0]).toBe(SHORT_DEMO_BANNER);
      expect(frame).toContain('[bob] asks to approve its plan');
      expect(lines.at(-2)).toMatch(/^y: approve {3}n: reject with/);
      expect(lines.at(-1)).toMatch(/^Tab: see who asks/);
    }
  });

  it('a 200,000-character reply still fits the screen', () => {
    const model = teamModel([
      {
        type: 'event',
        event: {
          type: 'agent',
          agentName: LEAD_NAME,
          event: { type: 'text_delta', text: 'x'.repeat(200_000) },
          at,
        },
      },
    ]);
    expectFits(frameOf(model), 24, 80);
  });

  it('the status line counts down while the team shuts down', () => {
    const { lastFrame, unmount } = render(
      <SessionScreen
        model={teamModel([], false)}
        keyboard={INITIAL_KEYBOARD}
        style={UNICODE}
        rows={24}
        columns={80}
        stopping={{ secondsLeft: 7, forced: false }}
      />,
    );
    expect(lastFrame()?.split('\n')[0]).toMatch(
      /^SHUTTING DOWN: 7 s left \(Ctrl-C again: end now\)/,
    );
    unmount();
  });
});
