// readProcessGroup per platform branch, on real processes: the Linux branch reads /proc, the
// macOS branch asks `ps -o pgid=` (procps answers the same question here), Windows has none.
import { spawn } from 'node:child_process';
import { afterEach, expect, it } from 'vitest';
import { readProcessGroup } from './process-group.js';

const started: number[] = [];
afterEach(() => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
});

/** A child leading its own process group (group id = its pid), and one that is gone. */
async function groupLeaderAndGonePid() {
  const leader = spawn('sleep', ['1000'], { detached: true, stdio: 'ignore' });
  started.push(leader.pid!);
  const gone = spawn('true', [], { stdio: 'ignore' });
  await new Promise((resolve) => gone.once('exit', resolve));
  return { leader: leader.pid!, gone: gone.pid! };
}

it.each(['linux', 'darwin'] as const)(
  'on %s: the group of a running process, undefined for a gone pid',
  async (platform) => {
    const { leader, gone } = await groupLeaderAndGonePid();
    expect(readProcessGroup(leader, platform)).toBe(leader);
    // This test process is not a group leader started by us: its group is not its pid.
    expect(readProcessGroup(process.pid, platform)).toBe(readProcessGroup(process.pid, 'linux'));
    expect(readProcessGroup(gone, platform)).toBeUndefined();
    expect(readProcessGroup(-1, platform)).toBeUndefined();
  },
);

it('on win32 (no process groups) it records nothing, without asking anything', async () => {
  const { leader } = await groupLeaderAndGonePid();
  expect(readProcessGroup(leader, 'win32')).toBeUndefined();
});
