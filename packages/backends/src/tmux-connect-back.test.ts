// tmux members that connect back to the lead link (the lifecycle part's member fixture).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Backend, MemberSpec } from './backend-types.js';
import { createTmuxBackend } from './tmux-backend.js';
import type { TmuxMemberHandle } from './tmux-member.js';
import {
  killTestServer,
  makeTeamRoot,
  pollUntil,
  processRuns,
  testSocketName,
} from './tmux-test-support.js';

const TEAM = 'linked';
const fixtures = new URL('../test-fixtures/', import.meta.url).pathname;
let socketName: string;
let team: ReturnType<typeof makeTeamRoot>;
let backend: Backend | undefined;
let logFile: string;

beforeEach(() => {
  socketName = testSocketName();
  team = makeTeamRoot(TEAM);
  logFile = join(team.root, 'members.log');
});

afterEach(async () => {
  await backend?.close().catch(() => undefined);
  backend = undefined;
  killTestServer(socketName);
  team.remove();
});

function fixtureMember(
  agentName: string,
  mode: string[],
  extra: Partial<MemberSpec> = {},
): MemberSpec {
  return {
    root: team.root,
    teamName: TEAM,
    agentName,
    agentId: `${agentName}@${TEAM}`,
    cwd: team.root,
    command: { file: process.execPath, args: [join(fixtures, 'member.mjs'), ...mode] },
    environment: { MEMBER_FIXTURE_LOG: logFile },
    ...extra,
  };
}

function logged(event: string): Record<string, unknown>[] {
  if (!existsSync(logFile)) return [];
  return readFileSync(logFile, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((entry) => entry.event === event);
}

describe('tmux members that connect back', () => {
  it('is ready only once the member says so over the lead link; kill ends it and its grandchildren', async () => {
    backend = createTmuxBackend({ socketName });
    const member = (await backend.spawn(
      fixtureMember('worker', ['grandchild']),
    )) as TmuxMemberHandle;
    await member.ready;
    // The fixture logs "ready" just after saying it on the link.
    await pollUntil('the ready line', () => logged('ready').length === 1);
    const grandchildren = logged('grandchildren')[0]?.pids as number[];
    expect(grandchildren.length).toBeGreaterThanOrEqual(3);
    expect(grandchildren.every((pid) => processRuns(pid))).toBe(true);
    const exit = await member.kill({ graceful: true, deadlineMs: 1_000 });
    expect(exit.reason).toBe('killed');
    await pollUntil('the grandchildren to end', () =>
      grandchildren.every((pid) => !processRuns(pid)),
    );
  });

  it('a member that never says ready is killed after readyTimeoutMs and ready rejects', async () => {
    backend = createTmuxBackend({ socketName });
    const member = (await backend.spawn(
      fixtureMember('silent', ['never-ready'], { readyTimeoutMs: 1_500 }),
    )) as TmuxMemberHandle;
    await expect(member.ready).rejects.toMatchObject({ code: 'NOT_READY' });
    const exit = await member.exited;
    expect(exit).toMatchObject({ reason: 'not-ready' });
    expect(exit.message).toContain('1500 ms');
    expect(member.isAlive()).toBe(false);
  });

  it('a member that exits with 3 after ready is reported as exited with code 3', async () => {
    backend = createTmuxBackend({ socketName });
    const member = (await backend.spawn(
      fixtureMember('quitter', ['exit', '3']),
    )) as TmuxMemberHandle;
    await member.ready;
    const exit = await member.exited;
    // tmux 3.3a loses this status about 1 run in 3; the backend makes tmux reap it
    // (tmux-exit-status.ts), so the exact code is required.
    expect(exit).toMatchObject({ reason: 'exited', code: 3, signal: null });
    expect(exit.message).toContain('kept for inspection');
  });
});
