// The teammate loop against the scripted model (a TEST DOUBLE of the Messages API) with real
// files, the real mailbox and a lead played by the test through a keyring-signed mailbox.
import { getEventListeners } from 'node:events';
import { createInProcessBackend } from '@muster/backends';
import { describe, expect, it } from 'vitest';
import { runTeammate } from './teammate.js';
import type { TeammateExit } from './teammate-options.js';
import {
  createTeammateFixture,
  eventually,
  lastUserText,
  protocolMessagesIn,
  scriptedClient,
  startTeammate,
  teammateOptions,
  waitForLeadMessages,
  stopTeammatesAfterEach,
} from './teammate-test-support.js';

const track = stopTeammatesAfterEach();

describe('runTeammate', () => {
  it('runs the spawn prompt as turn 1 and then tells the lead it is idle', async () => {
    const fixture = await createTeammateFixture();
    const teammate = track(
      startTeammate(
        fixture,
        () => ({ content: [{ type: 'text', text: 'Greeting module written.' }] }),
        {
          prompt: 'Write the greeting module.',
          description: 'Greeting module',
        },
      ),
    );
    const [idle] = await waitForLeadMessages(fixture, 'idle_notification');
    expect(idle).toMatchObject({
      type: 'idle_notification',
      from: 'alice',
      idleReason: 'available',
      result: 'Greeting module written.',
    });
    const requests = teammate.scriptedFetch.requests();
    expect(requests).toHaveLength(1);
    expect(lastUserText(requests[0]!)).toBe(
      '<teammate-message teammate_id="team-lead" summary="Greeting module">\nWrite the greeting module.\n</teammate-message>',
    );
    const states = fixture.events.flatMap((event) =>
      event.type === 'member_state' ? [event.state] : [],
    );
    expect(states.slice(0, 3)).toEqual(['starting', 'working', 'idle']);
  });

  it('takes a peer and a lead message waiting in its inbox as one turn, lead first', async () => {
    const fixture = await createTeammateFixture();
    await fixture.peer.send('alice', {
      from: 'bob',
      text: 'I renamed utils.ts.',
      summary: 'Renamed utils',
    });
    await fixture.lead.send('alice', { from: 'team-lead', text: 'Please also add tests.' });
    const teammate = track(
      startTeammate(fixture, () => ({ content: [{ type: 'text', text: 'Noted both.' }] })),
    );
    await waitForLeadMessages(fixture, 'idle_notification');
    const requests = teammate.scriptedFetch.requests();
    expect(requests).toHaveLength(1);
    // bob's color comes from the team config, as the mailbox writes it.
    const bob = (await fixture.peer.readAll('alice')).find((entry) => entry.from === 'bob')!;
    expect(lastUserText(requests[0]!)).toBe(
      [
        '<teammate-message teammate_id="team-lead">\nPlease also add tests.\n</teammate-message>',
        `<teammate-message teammate_id="bob" color="${bob.color}" summary="Renamed utils">\nI renamed utils.ts.\n</teammate-message>`,
      ].join('\n\n'),
    );
    // Both entries were marked read once they reached the model.
    await eventually('both entries read', async () => {
      const entries = await fixture.peer.readAll('alice');
      return entries.every((entry) => entry.read) ? true : undefined;
    });
  });

  it('ends promptly when its lifecycle signal aborts, leaving no listener behind', async () => {
    const fixture = await createTeammateFixture();
    const teammate = track(
      startTeammate(fixture, () => ({ content: [{ type: 'text', text: 'Done.' }] }), {
        prompt: 'Start.',
      }),
    );
    await waitForLeadMessages(fixture, 'idle_notification');
    teammate.controller.abort('lead shut down');
    const exit = await teammate.exit;
    expect(exit.reason).toBe('aborted');
    expect(exit.message).toMatch(/lead shut down/);
    expect(getEventListeners(teammate.controller.signal, 'abort')).toHaveLength(0);
    // No inbox watch is left: a message written now stays unread and wakes no model request.
    await fixture.lead.send('alice', { from: 'team-lead', text: 'Anyone there?' });
    await new Promise((resolve) => setTimeout(resolve, 700));
    const inbox = await fixture.lead.readAll('alice');
    expect(inbox.at(-1)).toMatchObject({ text: 'Anyone there?', read: false });
    expect(teammate.scriptedFetch.requests()).toHaveLength(1);
    const states = fixture.events.flatMap((event) =>
      event.type === 'member_state' ? [event.state] : [],
    );
    expect(states.at(-1)).toBe('gone');
    const idles = await protocolMessagesIn(fixture.lead, 'team-lead');
    expect(idles).toHaveLength(1);
  });

  it('runs as an in-process member: ready once it reads its inbox, ended by a graceful kill', async () => {
    const fixture = await createTeammateFixture();
    const { client, scriptedFetch } = scriptedClient(() => ({
      content: [{ type: 'text', text: 'Ready for work.' }],
    }));
    const backend = createInProcessBackend({ closeDeadlineMs: 5_000 });
    let exit: TeammateExit | undefined;
    try {
      const handle = await backend.spawn({
        root: fixture.root,
        teamName: fixture.teamName,
        agentName: 'alice',
        agentId: `alice@${fixture.teamName}`,
        cwd: fixture.cwd,
        run: async (context) => {
          exit = await runTeammate({
            ...teammateOptions(fixture, client),
            cwd: context.cwd,
            signal: context.signal,
            onReady: () => context.ready(),
            prompt: 'Say you are ready.',
          });
        },
      });
      await handle.ready;
      await waitForLeadMessages(fixture, 'idle_notification');
      const ended = await handle.kill({ graceful: true, deadlineMs: 5_000 });
      expect(ended.message).toMatch(/settled/);
      expect(exit).toMatchObject({ reason: 'aborted', turns: 1 });
    } finally {
      scriptedFetch.stop();
      await backend.close();
    }
  });
});
