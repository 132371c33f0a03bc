import { render } from 'ink-testing-library';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it, vi } from 'vitest';
import { PLAIN_STYLE } from '../terminal-style.js';
import {
  containsRawHostileCharacters,
  HOSTILE_TEXT,
  HOSTILE_TEXT_ESCAPED,
} from '../test-support/hostile-text.js';
import { Dashboard } from './dashboard.js';
import { MembersPane } from './panes.js';
import { buildDashboardModel, type TeamSnapshot } from './dashboard-model.js';

const TAB = '\t';
const RIGHT = '\u001B[C';

function hostileSnapshot(): TeamSnapshot {
  const member = (name: string) => ({
    agentId: `${name}@t`,
    name,
    agentType: 'general-purpose',
    joinedAt: 1,
    tmuxPaneId: 'in-process',
    cwd: '/w',
    subscriptions: [],
    backendType: 'in-process' as const,
  });
  const evil = `evil${HOSTILE_TEXT}`;
  return {
    teamName: 't',
    config: {
      name: 't',
      description: HOSTILE_TEXT,
      createdAt: 1,
      leadAgentId: 'team-lead@t',
      members: [{ ...member('team-lead'), agentId: 'team-lead@t' }, member(evil)],
    },
    inboxes: [
      {
        agent: 'team-lead',
        messages: [
          { from: evil, text: HOSTILE_TEXT, timestamp: new Date().toISOString(), read: false },
        ],
      },
    ],
    tasks: [
      {
        task: {
          id: '1',
          subject: HOSTILE_TEXT,
          description: `line one\n${HOSTILE_TEXT}`,
          status: 'in_progress',
          owner: evil,
          activeForm: HOSTILE_TEXT,
          blocks: [],
          blockedBy: [],
        },
        internal: false,
        openBlockers: [],
      },
    ],
  };
}

async function frameWhere(lastFrame: () => string | undefined, check: (frame: string) => boolean) {
  for (let waited = 0; ; waited += 25) {
    const frame = lastFrame() ?? '';
    if (check(frame) || waited >= 10_000) return frame;
    await sleep(25);
  }
}

describe('the dashboard draws what agents wrote escaped', () => {
  it('in every pane and in the detail view of a member, a task and a message', async () => {
    const model = buildDashboardModel(hostileSnapshot());
    const { lastFrame, stdin, frames } = render(
      <Dashboard
        model={model}
        style={PLAIN_STYLE}
        interactive
        rows={40}
        columns={100}
        status={`cannot read the team: ${HOSTILE_TEXT}`}
      />,
    );
    const waitFor = (text: string) => frameWhere(lastFrame, (frame) => frame.includes(text));
    const panes = await waitFor('Tasks (0/1 done) ->');
    expect(panes).toContain(`team t - ${HOSTILE_TEXT_ESCAPED}`);
    expect(panes).toContain('evilhi␛]0;pwned␇');
    expect(panes).toContain('#1 hi␛]0;pwned␇ ␛[');

    stdin.write('\r');
    const task = await waitFor('Task #1:');
    expect(task).toContain(HOSTILE_TEXT_ESCAPED);
    expect(task).toContain('line one');
    stdin.write('\r');
    stdin.write(TAB);
    await waitFor('Messages (1) ->');
    stdin.write('\r');
    const message = await waitFor('Message from evil');
    expect(message).toContain(HOSTILE_TEXT_ESCAPED);
    stdin.write('\r');
    stdin.write(RIGHT);
    await waitFor('Members (2) ->');
    stdin.write(DOWN_ONCE);
    stdin.write('\r');
    expect(await waitFor('Member evil')).toContain(`Member evil${HOSTILE_TEXT_ESCAPED}`);
    for (const frame of frames) expect(containsRawHostileCharacters(frame)).toBe(false);
  }, 60_000);
});

const DOWN_ONCE = '\u001B[B';

describe('members with the same name (a config written by hand)', () => {
  it('are both listed, and React prints no warning over the dashboard', () => {
    const snapshot = hostileSnapshot();
    const twin = { ...snapshot.config.members[1]!, agentId: 'twin@t' };
    const model = buildDashboardModel({
      ...snapshot,
      config: { ...snapshot.config, members: [...snapshot.config.members, twin] },
    });
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const frame =
        render(
          <MembersPane members={model.members} style={PLAIN_STYLE} focused={false} selected={0} />,
        ).lastFrame() ?? '';
      expect(frame.match(/\* evil/g)).toHaveLength(2);
      expect(errors).not.toHaveBeenCalled();
    } finally {
      errors.mockRestore();
    }
  });
});
