// R20 with a lead inside tmux: a detached session on a private test socket plays the user's
// session, and its first pane the lead.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Backend } from './backend-types.js';
import { createTmuxBackend } from './tmux-backend.js';
import type { TmuxMemberHandle } from './tmux-member.js';
import {
  killTestServer,
  makeTeamRoot,
  pollUntil,
  scriptMember,
  startLeadSession,
  testSocketName,
  tmuxOn,
} from './tmux-test-support.js';

const TEAM = 'layout';
let socketName: string;
let team: ReturnType<typeof makeTeamRoot>;
let backend: Backend | undefined;

beforeEach(() => {
  socketName = testSocketName();
  team = makeTeamRoot(TEAM);
});

afterEach(async () => {
  await backend?.close().catch(() => undefined);
  backend = undefined;
  killTestServer(socketName);
  team.remove();
});

function paneWidth(paneId: string): number {
  return Number(
    tmuxOn(socketName, ['display-message', '-p', '-t', paneId, '#{pane_width}']).trim(),
  );
}

function spawnIdle(index: number): Promise<TmuxMemberHandle> {
  const spec = scriptMember(team.root, TEAM, `member${index}`, 'exec sleep 1000');
  return backend!.spawn(spec) as Promise<TmuxMemberHandle>;
}

describe('tmux layout with the lead inside tmux (R20)', () => {
  it('keeps the lead at 30 % (59–61 of 200 columns) with 8 members, after spawns and a kill', async () => {
    const leadPane = startLeadSession(socketName, 200, 50);
    backend = createTmuxBackend({ socketName, leadPane });
    // Spawns are serialized by the backend even when asked for all at once.
    const members = await Promise.all(Array.from({ length: 8 }, (_, index) => spawnIdle(index)));
    const windows = new Set(members.map((member) => member.windowId));
    expect(windows.size).toBe(1);
    const leadWindow = tmuxOn(socketName, [
      'display-message',
      '-p',
      '-t',
      leadPane,
      '#{window_id}',
    ]).trim();
    expect([...windows]).toEqual([leadWindow]);
    const leadWidth = paneWidth(leadPane);
    console.log(`lead pane width with 8 members on 200 columns: ${leadWidth}`);
    expect(leadWidth).toBeGreaterThanOrEqual(59);
    expect(leadWidth).toBeLessThanOrEqual(61);
    // Members are stacked right of the lead, in spawn order.
    const lefts = members.map((member) =>
      Number(
        tmuxOn(socketName, [
          'display-message',
          '-p',
          '-t',
          member.identity.paneId,
          '#{pane_left}',
        ]).trim(),
      ),
    );
    expect(new Set(lefts).size).toBe(1);
    expect(lefts[0]).toBeGreaterThan(leadWidth);
    await members[3]!.kill({ graceful: false });
    const afterKill = paneWidth(leadPane);
    expect(afterKill).toBeGreaterThanOrEqual(59);
    expect(afterKill).toBeLessThanOrEqual(61);
  });

  it('leadPercent gives the lead its share (60 % of 100 columns) after a spawn; a share out of range is refused', async () => {
    const leadPane = startLeadSession(socketName, 100, 30);
    backend = createTmuxBackend({ socketName, leadPane, leadPercent: 60 });
    await spawnIdle(0);
    const leadWidth = paneWidth(leadPane);
    expect(leadWidth).toBeGreaterThanOrEqual(59);
    expect(leadWidth).toBeLessThanOrEqual(61);
    for (const leadPercent of [5, 95, Number.NaN]) {
      expect(() => createTmuxBackend({ socketName, leadPane, leadPercent })).toThrow(
        /leadPercent must be a number from 10 to 90/,
      );
    }
  });

  it("leaves a pane of the user's own in the lead's window running, lead still at 30 %", async () => {
    const leadPane = startLeadSession(socketName, 200, 50);
    const userPane = tmuxOn(socketName, [
      'split-window',
      '-d',
      '-v',
      '-t',
      leadPane,
      '-P',
      '-F',
      '#{pane_id}',
      '--',
      'sleep',
      '1000',
    ]).trim();
    const userPid = tmuxOn(socketName, [
      'display-message',
      '-p',
      '-t',
      userPane,
      '#{pane_pid}',
    ]).trim();
    backend = createTmuxBackend({ socketName, leadPane });
    const first = await spawnIdle(0);
    const second = await spawnIdle(1);
    const splitOf = (paneId: string) =>
      tmuxOn(socketName, ['display-message', '-p', '-t', paneId, '#{pane_left}']).trim();
    expect(Number(splitOf(first.identity.paneId))).toBeGreaterThan(paneWidth(leadPane));
    expect(splitOf(second.identity.paneId)).toBe(splitOf(first.identity.paneId));
    expect(
      tmuxOn(socketName, [
        'display-message',
        '-p',
        '-t',
        userPane,
        '#{pane_pid} #{pane_dead}',
      ]).trim(),
    ).toBe(`${userPid} 0`);
    const leadWidth = paneWidth(leadPane);
    expect(leadWidth).toBeGreaterThanOrEqual(59);
    expect(leadWidth).toBeLessThanOrEqual(61);
  });

  it('does not pass on model credentials from the server environment unless the spec gives them', async () => {
    const leadPane = startLeadSession(socketName, 200, 50);
    tmuxOn(socketName, ['set-environment', '-g', 'ANTHROPIC_API_KEY', 'from-the-server']);
    backend = createTmuxBackend({ socketName, leadPane });
    const seen = (name: string) => join(team.root, `${name}.key`);
    const script = (name: string) =>
      `echo "\${ANTHROPIC_API_KEY-unset}" > ${seen(name)}; exec sleep 1000`;
    await backend.spawn(scriptMember(team.root, TEAM, 'plain', script('plain')));
    await backend.spawn({
      ...scriptMember(team.root, TEAM, 'given', script('given')),
      environment: { ANTHROPIC_API_KEY: 'from-the-spec' },
    });
    const read = (name: string) =>
      pollUntil(
        `${name}.key`,
        // An empty file is one the shell has created but not written yet.
        () => (existsSync(seen(name)) && readFileSync(seen(name), 'utf8').trim()) || undefined,
      );
    expect(await read('plain')).toBe('unset');
    expect(await read('given')).toBe('from-the-spec');
  });

  it('on 80×24, member 6 opens in a new window and the user is told; TMUX/TMUX_PANE select the lead', async () => {
    const leadPane = startLeadSession(socketName, 80, 24);
    const [serverPid, socketPath] = tmuxOn(socketName, [
      'display-message',
      '-p',
      '#{pid} #{socket_path}',
    ])
      .trim()
      .split(' ');
    const notices: string[] = [];
    backend = createTmuxBackend({
      environment: { TMUX: `${socketPath},${serverPid},0`, TMUX_PANE: leadPane },
      onNotice: (text) => notices.push(text),
    });
    const members: TmuxMemberHandle[] = [];
    for (let index = 0; index < 6; index += 1) members.push(await spawnIdle(index));
    const leadWindow = tmuxOn(socketName, [
      'display-message',
      '-p',
      '-t',
      leadPane,
      '#{window_id}',
    ]).trim();
    expect(members.slice(0, 5).map((member) => member.windowId)).toEqual(Array(5).fill(leadWindow));
    expect(members[5]!.windowId).not.toBe(leadWindow);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toContain(`member5 opened in a new tmux window ${members[5]!.windowId}`);
    expect(members[5]!.describe().notes?.join('\n')).toContain('new tmux window');
    expect(members[5]!.describe().attachCommand).toContain(`-S ${socketPath}`);
  });
});
