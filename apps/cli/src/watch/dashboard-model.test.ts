import { describe, expect, it } from 'vitest';
import { copyReferenceState } from '../test-support/reference.js';
import { buildDashboardModel, type TeamSnapshot } from './dashboard-model.js';
import { loadTeamSnapshot } from './load-team-snapshot.js';

const lead = {
  agentId: 'team-lead@t',
  name: 'team-lead',
  agentType: 'team-lead',
  joinedAt: 1,
  tmuxPaneId: '',
  cwd: '/w',
  subscriptions: [],
};
const teammate = (name: string, color: string) => ({
  agentId: `${name}@t`,
  name,
  agentType: 'general-purpose',
  joinedAt: 1,
  tmuxPaneId: 'in-process',
  cwd: '/w',
  subscriptions: [],
  color,
  backendType: 'in-process' as const,
});
const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 12, 0, second)).toISOString();
const protocol = (value: Record<string, unknown>) => JSON.stringify(value);

function snapshot(inboxes: TeamSnapshot['inboxes']): TeamSnapshot {
  return {
    teamName: 't',
    config: {
      name: 't',
      createdAt: 1,
      leadAgentId: 'team-lead@t',
      members: [
        lead,
        teammate('alpha', 'blue'),
        teammate('beta', 'green'),
        teammate('gamma', 'yellow'),
      ],
    },
    inboxes,
    tasks: [],
  };
}

describe('buildDashboardModel', () => {
  it('reads the member states from the messages: idle, awaiting plan approval, stopping, working', () => {
    const model = buildDashboardModel(
      snapshot([
        {
          agent: 'team-lead',
          messages: [
            {
              from: 'alpha',
              text: protocol({ type: 'idle_notification', from: 'alpha', timestamp: at(1) }),
              timestamp: at(1),
              read: false,
            },
            {
              from: 'beta',
              text: protocol({
                type: 'plan_approval_request',
                from: 'beta',
                timestamp: at(2),
                planFilePath: '/p.md',
                planContent: '# Plan\n\n1. Test it',
                requestId: 'plan_approval-2@beta@t',
              }),
              timestamp: at(2),
              read: false,
            },
          ],
        },
        {
          agent: 'gamma',
          messages: [
            {
              from: 'team-lead',
              text: protocol({
                type: 'shutdown_request',
                requestId: 'shutdown-3@gamma',
                from: 'team-lead',
                reason: 'done',
                timestamp: at(3),
              }),
              timestamp: at(3),
              read: false,
            },
          ],
        },
      ]),
    );
    const states = Object.fromEntries(model.members.map((member) => [member.name, member.state]));
    expect(states).toEqual({
      'team-lead': 'working',
      alpha: 'idle',
      beta: 'awaiting plan approval',
      gamma: 'stopping',
    });
    expect(model.members.find((member) => member.name === 'team-lead')?.unread).toBe(2);
  });

  it('wakes an idle member when a message arrives after its idle notification', () => {
    const model = buildDashboardModel(
      snapshot([
        {
          agent: 'team-lead',
          messages: [
            {
              from: 'alpha',
              text: protocol({ type: 'idle_notification', from: 'alpha', timestamp: at(1) }),
              timestamp: at(1),
              read: false,
            },
          ],
        },
        {
          agent: 'alpha',
          messages: [{ from: 'team-lead', text: 'take task 2', timestamp: at(5), read: false }],
        },
      ]),
    );
    expect(model.members.find((member) => member.name === 'alpha')?.state).toBe('working');
  });

  it('marks a member gone when the sidecar says its process ended', () => {
    const model = buildDashboardModel({
      ...snapshot([]),
      memberProcesses: new Map([['beta', 'gone']]),
    });
    expect(model.members.find((member) => member.name === 'beta')?.state).toBe('gone');
  });

  it('folds one text sent to every other member into one "to everyone" line', () => {
    const text = 'stand-up in five minutes';
    const model = buildDashboardModel(
      snapshot(
        ['team-lead', 'beta', 'gamma'].map((agent, index) => ({
          agent,
          messages: [
            {
              from: 'alpha',
              text,
              summary: 'stand-up soon',
              timestamp: at(10 + index / 10),
              read: false,
            },
          ],
        })),
      ),
    );
    expect(model.feed).toHaveLength(1);
    expect(model.feed[0]?.sentence).toBe('alpha to everyone: stand-up soon');
    expect(model.feed[0]?.recipients).toEqual(['team-lead', 'beta', 'gamma']);
  });

  it('shows the 11-all-shutdowns-approved reference: everyone gone, protocol messages in words', async () => {
    const root = await copyReferenceState('11-all-shutdowns-approved');
    const model = buildDashboardModel(await loadTeamSnapshot(root, 'conf-team'));
    // The lead has no recorded process and its last message is long past: unknown.
    expect(model.members.map((member) => [member.name, member.state])).toEqual([
      ['team-lead', 'unknown'],
      ['alpha', 'gone'],
      ['beta', 'gone'],
      ['gamma', 'gone'],
    ]);
    expect(model.hiddenTaskCount).toBe(3);
    expect(model.tasks.map((task) => [task.id, task.status, task.owner])).toEqual([
      ['1', 'completed', 'alpha'],
      ['2', 'completed', 'beta'],
      ['3', 'pending', 'alpha'],
    ]);
    const sentences = model.feed.map((entry) => entry.sentence);
    expect(sentences).toContain("beta's plan was rejected: Please also cover the empty-name case.");
    expect(sentences).toContain("beta's plan was approved (mode default)");
    expect(sentences).toContain('alpha refused to shut down: Still wrapping up notes, not yet.');
    expect(sentences).toContain(
      'team-lead asks gamma to shut down: Thanks gamma, shutting the team down.',
    );
    expect(sentences).toContain('alpha went idle');
    expect(sentences).toContain('alpha agreed to shut down (in-process)');
    expect(sentences).toContain('gamma asks to run Write: /tmp/cc-team-run.VrSyaN/repo/gamma.txt');
    expect(sentences).toContain(
      'team-lead refused to let gamma run Write: /tmp/cc-team-run.VrSyaN/repo/gamma-denied.txt: Denied by conformance harness',
    );
    expect(sentences).toContain('team-lead assigned task #3 to alpha: Document greeting module');
    expect(sentences).toContain('alpha took task #1: Implement greeting module');
    expect(sentences).toContain('beta asks team-lead to approve a plan: Plan for task 2');
    expect(sentences.some((sentence) => sentence.includes('{"type"'))).toBe(false);
  });
});
