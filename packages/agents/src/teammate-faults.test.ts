// The teammate loop when things go wrong or come from elsewhere: a failed turn, an abort in the
// middle of a stalled model stream, a teammate in its own process verifying the lead's
// signature, and bad options. The model is @muster/scripted-model, a TEST DOUBLE.
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { runTeammate } from './teammate.js';
import { TeammateError, type TeammateOptions } from './teammate-options.js';
import {
  createTeammateFixture,
  eventually,
  protocolMessagesIn,
  scriptedClient,
  startTeammate,
  teammateOptions,
  waitForLeadMessages,
  stopTeammatesAfterEach,
} from './teammate-test-support.js';

const track = stopTeammatesAfterEach();

describe('runTeammate faults', () => {
  it('reports a failed turn in its idle notification and keeps waiting for work', async () => {
    const fixture = await createTeammateFixture();
    const teammate = startTeammate(
      fixture,
      () => ({
        content: [],
        fault: { kind: 'http-error', status: 400, errorType: 'invalid_request_error' },
      }),
      { prompt: 'Start.' },
    );
    track(teammate);
    const [idle] = await waitForLeadMessages(fixture, 'idle_notification');
    expect(idle).toMatchObject({ idleReason: 'failed' });
    expect(idle!.failureReason).toBeTruthy();
    const settled = await Promise.race([
      teammate.exit.then(() => 'ended'),
      new Promise((resolve) => setTimeout(() => resolve('running'), 200)),
    ]);
    expect(settled).toBe('running');
  });

  it('ends a turn whose model stream stalls when the lifecycle signal aborts, without an idle notification', async () => {
    const fixture = await createTeammateFixture();
    const teammate = startTeammate(
      fixture,
      () => ({ content: [], fault: { kind: 'silence-after-headers' } }),
      { prompt: 'Start.' },
    );
    track(teammate);
    await eventually('the turn to start', () =>
      fixture.events.some((event) => event.type === 'member_state' && event.state === 'working')
        ? true
        : undefined,
    );
    teammate.controller.abort('lead gone');
    const exit = await teammate.exit;
    expect(exit).toMatchObject({ reason: 'aborted', turns: 1 });
    expect(await protocolMessagesIn(fixture.lead, 'team-lead')).toEqual([]);
  });

  it('in its own process verifies the lead by its signature key (a pane teammate)', async () => {
    const fixture = await createTeammateFixture();
    const { launchArguments } = fixture.keyring.createMemberKey('alice');
    const verifyKey = launchArguments[1]!;
    let asked = 0;
    const teammate = startTeammate(
      fixture,
      (request) => {
        const text = JSON.stringify((request.body as { messages: unknown[] }).messages.at(-1));
        const requestId = /shutdown-[0-9]+@alice/.exec(text)?.[0];
        asked += requestId === undefined ? 0 : 1;
        return requestId !== undefined && asked === 1
          ? {
              content: [
                {
                  type: 'tool_use',
                  name: 'SendMessage',
                  input: { type: 'shutdown_response', request_id: requestId, approve: true },
                },
              ],
            }
          : { content: [{ type: 'text', text: 'Bye.' }] };
      },
      { leadTrust: { verifyKey }, backendType: 'tmux', paneId: '%7' },
    );
    track(teammate);
    await fixture.lead.sendProtocolMessage('alice', 'team-lead', {
      type: 'shutdown_request',
      requestId: `shutdown-${Date.now()}@alice`,
      from: 'team-lead',
      timestamp: new Date().toISOString(),
    });
    const exit = await teammate.exit;
    expect(exit.reason).toBe('shutdown');
    const [approved] = await waitForLeadMessages(fixture, 'shutdown_approved');
    expect(approved).toMatchObject({ paneId: '%7', backendType: 'tmux' });
  });

  it('refuses bad options, naming the option and what to pass', async () => {
    const fixture = await createTeammateFixture();
    const { client, scriptedFetch } = scriptedClient(() => ({ content: [] }));
    const base = { ...teammateOptions(fixture, client), signal: new AbortController().signal };
    const cases: Array<[Partial<TeammateOptions>, RegExp]> = [
      [{ cwd: 'relative/dir' }, /cwd must be an absolute path/],
      [{ agentName: '../alice' }, /agentName "..\/alice" is not a member name/],
      [{ agentId: 'bob@crew' }, /agentId must be "alice@/],
      [{ leadTrust: undefined as never }, /leadTrust is required/],
      [{ permissionMode: 'yolo' as never }, /permissionMode "yolo" is not a permission mode/],
      [{ compaction: { thresholdTokens: 0 } }, /compaction.thresholdTokens must be a positive/],
      [{ signal: undefined as never }, /signal must be the lifecycle AbortSignal/],
    ];
    try {
      for (const [change, message] of cases) {
        const attempt = runTeammate({ ...base, ...change });
        await expect(attempt).rejects.toThrow(message);
        await expect(attempt).rejects.toSatisfy((error) => TeammateError.isInstance(error));
      }
      // A model the loop refuses: the error comes out, and no inbox watch or listener stays.
      const controller = new AbortController();
      await expect(
        runTeammate({ ...base, model: 'no such model!', signal: controller.signal }),
      ).rejects.toThrow(/model/i);
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
      const sendMessage = { name: 'SendMessage' } as TeammateOptions['tools'][number];
      await expect(runTeammate({ ...base, tools: [sendMessage] })).rejects.toThrow(
        /tools must not contain SendMessage: the loop adds the team tools/,
      );
    } finally {
      scriptedFetch.stop();
    }
  });
});
