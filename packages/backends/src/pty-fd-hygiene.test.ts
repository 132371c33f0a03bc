// R23: the lead never holds a PTY master, so its other children inherit none, and a SIGKILLed
// lead takes its PTY members with it (with node-pty used in the lead itself, a plain child kept
// the leaked master open and the member survived).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { makeTempDirectory, startNodeProcess } from '@muster/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { createPtyBackend, type PtyBackend } from './pty-backend.js';
import {
  childrenOf,
  describeProcess,
  isProcessAlive,
  processGroupOf,
  ptyMasterDescriptors,
  sessionMembers,
  waitUntil,
} from './pty-test-support.js';

const leadFixture = fileURLToPath(new URL('../test-fixtures/pty-lead.mjs', import.meta.url));
const cleanups: (() => void | Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function killQuietly(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

describe('pty fd hygiene (R23)', () => {
  it('leaves no PTY master in the lead or in a plain child started after a PTY member', async () => {
    const root = await makeTempDirectory('muster-pty-fd-');
    const backend: PtyBackend = createPtyBackend();
    cleanups.push(() => backend.close());
    const member = await backend.spawn({
      root,
      teamName: 'alpha',
      agentName: 'worker',
      agentId: 'worker@alpha',
      cwd: root,
      command: { file: 'sleep', args: ['1000'] },
      readiness: 'external',
    });
    expect(member.isAlive()).toBe(true);
    const plain = spawn('sleep', ['1000'], { stdio: 'ignore' });
    cleanups.push(() => killQuietly(plain.pid));
    expect(ptyMasterDescriptors(plain.pid as number)).toBe(0);
    expect(ptyMasterDescriptors(process.pid)).toBe(0);
    // The masters are in the host, which starts nothing but PTYs.
    expect(ptyMasterDescriptors(member.hostPid)).toBeGreaterThanOrEqual(1);
  });

  // Retried while its CI-only failure is tracked: under the whole suite's load (cli, backends and query tests at once on 2 cores) the members took more than 10 s to be gone once in stop 13 (16 of 16 passed under load alone). A regression fails all three attempts.
  it(
    'a SIGKILLed lead takes its PTY members (HUP-ignoring, other groups of the session too) and the host',
    { retry: 2 },
    async () => {
      const root = await makeTempDirectory('muster-pty-lead-');
      const lead = startNodeProcess(leadFixture, [
        root,
        'bash',
        '-c',
        // `set -m`: the second job runs in a process group of its own (same session).
        'trap "" HUP TERM; sleep 1000 & setsid sleep 1000 & set -m; (trap "" HUP TERM; sleep 1000) & wait',
      ]);
      cleanups.push(() => killQuietly(lead.child.pid));
      const line = await lead.waitForLine((text) => text.startsWith('{'), 20_000);
      const pids = JSON.parse(line) as {
        memberPid: number;
        hostPid: number;
        plainPid: number;
        leadMasters: number;
        plainMasters: number;
      };
      cleanups.push(() => killQuietly(pids.plainPid));
      cleanups.push(() => killQuietly(pids.hostPid));
      // Runs first: every process of the member's session, whatever group it is in.
      cleanups.push(() => sessionMembers(pids.memberPid).forEach((pid) => killQuietly(pid)));
      expect(pids.leadMasters).toBe(0);
      expect(pids.plainMasters).toBe(0);
      // bash, its sleep, and the job's sleep (bash execs the one-command subshell).
      await waitUntil(() => sessionMembers(pids.memberPid).length >= 3, 10_000);
      const session = sessionMembers(pids.memberPid);
      expect(session.some((pid) => processGroupOf(pid) !== pids.memberPid)).toBe(true);
      // The `setsid` sleep left the session: it is found as the member's child.
      await waitUntil(
        () => childrenOf(pids.memberPid).some((pid) => !session.includes(pid)),
        10_000,
      );
      const escaped = childrenOf(pids.memberPid).filter((pid) => !session.includes(pid));
      cleanups.push(() => escaped.forEach((pid) => killQuietly(pid)));
      const everyone = [...session, ...escaped, pids.hostPid];
      lead.child.kill('SIGKILL');
      await lead.exited;
      const started = Date.now();
      await waitUntil(() => everyone.every((pid) => !isProcessAlive(pid)), 10_000).catch(
        () => undefined,
      );
      console.log(
        `pty member, its child and the host gone ${Date.now() - started} ms after the lead's SIGKILL`,
      );
      // Each survivor named with its command and parent, so a failure says who stayed.
      expect(
        everyone.filter((pid) => isProcessAlive(pid)).map((pid) => describeProcess(pid)),
      ).toEqual([]);
    },
  );
});
