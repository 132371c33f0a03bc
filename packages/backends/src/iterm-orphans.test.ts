// R31 for the iTerm2 backend (with the it2 STAND-IN, not iTerm2): a lead process with members
// in stand-in panes is SIGKILLed; 5 s later nothing of the team is left running: members, the
// TERM-ignoring one, and a member's grandchildren (in its group and in a new session). The
// panes' processes are not the lead's children, as in iTerm2: only the lead link ends them.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { readProcessStat } from '@muster/file-lock';
import { startNodeProcess } from '@muster/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { makeStandInLead, standInPaths } from './iterm-test-support.js';

const leadFixture = path.join(path.dirname(standInPaths.it2), 'it2-stand-in-lead.mjs');
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function running(pid: number): boolean {
  const stat = readProcessStat(pid);
  return stat !== undefined && stat.state !== 'Z';
}

describe('iTerm2 backend: no member outlives its lead (R31)', () => {
  it('SIGKILL of the lead leaves no member and no grandchild running after 5 s', async () => {
    const standIn = await makeStandInLead();
    cleanups.push(() => standIn.killAll());
    const fixtureLog = path.join(standIn.root, 'members.log');
    const lead = startNodeProcess(
      leadFixture,
      [standIn.root, standIn.teamName, 'idle:idle', 'stubborn:ignore-term', 'parent:grandchild'],
      { env: { ...standIn.environment, MEMBER_FIXTURE_LOG: fixtureLog } },
    );
    cleanups.push(() => lead.child.kill('SIGKILL'));
    const line = await lead.waitForLine((text) => text.startsWith('{"ready":true'), 60_000);
    const members = (JSON.parse(line) as { members: Array<{ pid: number }> }).members;
    const events = readFileSync(fixtureLog, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((entry) => JSON.parse(entry) as { event: string; pid?: number; pids?: number[] });
    const memberPids = events
      .filter((event) => event.event === 'started')
      .map((event) => event.pid!);
    const grandchildren = events.find((event) => event.event === 'grandchildren')?.pids ?? [];
    const everyone = [...members.map((member) => member.pid), ...memberPids, ...grandchildren];
    expect(memberPids).toHaveLength(3);
    expect(grandchildren).toHaveLength(3);
    cleanups.push(() => {
      for (const pid of everyone) if (running(pid)) process.kill(pid, 'SIGKILL');
    });
    expect(everyone.every(running)).toBe(true);

    const killedAt = Date.now();
    lead.child.kill('SIGKILL');
    await lead.exited;
    let allGoneAt: number | undefined;
    while (Date.now() - killedAt < 5_000) {
      if (allGoneAt === undefined && !everyone.some(running)) allGoneAt = Date.now();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    console.log(
      `iTerm2 (stand-in) R31: ${everyone.filter(running).length} of ${everyone.length} processes left 5 s after the lead's SIGKILL; all gone after ${allGoneAt === undefined ? 'never' : `${allGoneAt - killedAt} ms`}`,
    );
    expect(everyone.filter(running)).toEqual([]);
  });
});
