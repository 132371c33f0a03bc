import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { copyReferenceState, referenceEntry2_1_330 } from '../test-support/reference.js';
import { editConfig, makeSessionLive, sessionTeamOf } from '../test-support/session-teams.js';
import { buildDashboardModel } from './dashboard-model.js';
import { loadTeamSnapshot } from './load-team-snapshot.js';
import { renderFrame } from './render-frame.js';
import { PLAIN_STYLE } from '../terminal-style.js';

describe('the dashboard of a Claude Code 2.1.330 session team', () => {
  it('shows the session running, the lead as lead, and a pane member "starting" while its pane id is ""', async () => {
    const root = await copyReferenceState('tmux-08-permission-answered');
    const team = await makeSessionLive(root);
    await editConfig(root, team, (config) => {
      const members = config.members as Record<string, unknown>[];
      const { backendType: _backend, isActive: _active, ...alpha } = members[2]!;
      members[2] = { ...alpha, tmuxPaneId: '' };
    });
    const model = buildDashboardModel(await loadTeamSnapshot(root, team));
    expect(model.session).toMatchObject({ state: 'running' });
    expect(model.members.map((member) => [member.name, member.backend, member.state])).toEqual([
      ['team-lead', 'lead', 'working'],
      ['gamma', 'tmux', 'working'],
      ['alpha', 'pane', 'starting'],
    ]);
    expect(model.members.map((member) => member.isActive)).toEqual([undefined, true, undefined]);
    const frame = renderFrame(model, PLAIN_STYLE, { columns: 120 });
    expect(frame).toContain(`team ${team} - session running`);
    expect(frame).toContain('alpha     pane    starting');
  });

  it('says the session ended when its lead process is gone', async () => {
    const root = await copyReferenceState('in-process-07-all-teammates-spawned');
    const team = await sessionTeamOf(root);
    const model = buildDashboardModel(await loadTeamSnapshot(root, team));
    expect(model.session).toMatchObject({ state: 'ended' });
    expect(model.session?.reason).toMatch(/pid \d+/);
    // The lead and its in-process teammates lived in that process.
    expect(new Set(model.members.map((member) => member.state))).toEqual(new Set(['gone']));
  });

  it('puts the automatic plan approval and the stale rejection after it into words, in order', async () => {
    const root = await copyReferenceState('in-process-07-all-teammates-spawned');
    const team = await makeSessionLive(root);
    const approval = await referenceEntry2_1_330('plan_approval_response_approved');
    const rejection = await referenceEntry2_1_330('plan_approval_response_rejected');
    const { requestId } = JSON.parse(approval.text as string) as { requestId: string };
    const rejectionText = JSON.parse(rejection.text as string) as Record<string, unknown>;
    await writeFile(
      path.join(root, 'teams', team, 'inboxes', 'beta.json'),
      JSON.stringify(
        [approval, { ...rejection, text: JSON.stringify({ ...rejectionText, requestId }) }],
        null,
        2,
      ),
    );
    const feed = buildDashboardModel(await loadTeamSnapshot(root, team)).feed.filter(
      (entry) => entry.kind === 'plan_approval_response',
    );
    expect(feed.map((entry) => entry.sentence)).toEqual([
      expect.stringMatching(/^beta's plan was approved automatically \(plan sha256 /),
      "team-lead rejected beta's plan after it was approved; beta ignores it as stale: Please also cover the empty-name case.",
    ]);
  });
});
