// iTerm2 members are killed by process group number; a group whose leader is now another
// process (a reused pid) must never be signalled (R16). A fake identity stands for the reuse.
import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { killRecordedGroup, mayKillRecordedGroup } from './iterm-member.js';
import { readProcessIdentity } from './process-control.js';
import { isProcessAlive, waitUntil } from './pty-test-support.js';

const started: ChildProcess[] = [];

afterEach(() => {
  for (const child of started.splice(0)) {
    try {
      process.kill(-(child.pid as number), 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
});

/** A `sleep` leading a process group of its own: a bystander whose group number we know. */
async function groupLeader(): Promise<number> {
  const child = spawn('sleep', ['1000'], { detached: true, stdio: 'ignore' });
  started.push(child);
  const pid = child.pid as number;
  await waitUntil(() => readProcessIdentity(pid) !== undefined, 10_000);
  return pid;
}

describe('iTerm2 member process group (R16)', () => {
  it('never SIGKILLs a group whose leader is not the recorded process', async () => {
    const bystander = await groupLeader();
    const real = readProcessIdentity(bystander);
    expect(real).toBeDefined();
    // The member recorded this pid and group, but from another process (a different start
    // time): the member is gone and the number was handed to someone else.
    const fake = { ...real!, startTime: `${Number(real!.startTime) - 1}` };
    const record = { pid: bystander, pgid: bystander, identity: fake, groupLeader: fake };
    expect(mayKillRecordedGroup(record)).toBe(false);
    expect(killRecordedGroup(record)).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(isProcessAlive(bystander)).toBe(true);

    // The member itself gone, its group led by another process than the recorded leader.
    const memberGone = {
      pid: 999_999_999,
      pgid: bystander,
      identity: undefined,
      groupLeader: fake,
    };
    expect(mayKillRecordedGroup(memberGone)).toBe(false);
    expect(isProcessAlive(bystander)).toBe(true);
  });

  it('SIGKILLs the group while it is the recorded one, and not a group that no longer exists', async () => {
    const leader = await groupLeader();
    const identity = readProcessIdentity(leader);
    const record = { pid: leader, pgid: leader, identity, groupLeader: identity };
    const child = started[0] as ChildProcess;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    expect(mayKillRecordedGroup(record)).toBe(true);
    expect(killRecordedGroup(record)).toBe(true);
    await exited;
    await waitUntil(() => !isProcessAlive(leader), 10_000);
    // Reaped and its group empty: nothing to signal any more.
    expect(mayKillRecordedGroup(record)).toBe(false);
  });
});
