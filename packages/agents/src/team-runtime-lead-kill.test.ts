// R31 for a whole team: a lead process (test-fixtures/team-lead.mjs, on the built dist) with
// one teammate in-process, one on a PTY and one in a private tmux server, each inside a
// `sleep` of its Bash tool, is SIGKILLed. Five seconds later nothing of the team runs: no
// sleep, no teammate process, no tmux server. Models: @muster/scripted-model, a TEST DOUBLE.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { makeTempDirectory } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import { until } from './team-runtime-test-support.js';

const fixture = fileURLToPath(new URL('../test-fixtures/team-lead.mjs', import.meta.url));

/** Live processes (not zombies) whose command line or environment contains `needle`. */
function processesWith(needle: string, where: 'cmdline' | 'environ'): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const status = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (/\) Z /.test(status)) continue;
      if (readFileSync(`/proc/${entry}/${where}`, 'utf8').includes(needle))
        found.push(Number(entry));
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

describe('a SIGKILLed lead leaves nothing of its team running', () => {
  it('in-process, pty and tmux teammates, each in a sleep of its Bash tool', async () => {
    const root = await makeTempDirectory('muster-lead-kill-');
    const cwd = await makeTempDirectory('muster-lead-kill-cwd-');
    const teamName = `kill-${Math.random().toString(36).slice(2, 8)}`;
    // A sleep length no other process uses: the shell execs `sleep`, so only its argv can carry it.
    const marker = `1000.${Math.floor(Math.random() * 1e9)}`;
    // The argv of such a sleep (the lead's own argv carries the marker too).
    const sleep = `sleep\u0000${marker}\u0000`;
    const lead = spawn(process.execPath, [fixture, root, cwd, teamName, marker], {
      env: { ...process.env, MUSTER_FIXTURE_PLACEMENT: 'alice=in-process,bob=pty,carol=tmux' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    lead.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    lead.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      await until(
        'three teammates in their sleeps',
        () => (processesWith(sleep, 'cmdline').length >= 3 ? true : undefined),
        60_000,
      );
      expect(processesWith(`MUSTER_HOME=${root}`, 'environ').length).toBeGreaterThan(0);
      expect(processesWith(`muster-${teamName}`, 'cmdline').length).toBeGreaterThan(0);
      lead.kill('SIGKILL');
      await new Promise((resolve) => setTimeout(resolve, 5_000));
      expect({
        sleeps: processesWith(sleep, 'cmdline'),
        teammates: processesWith(`MUSTER_HOME=${root}`, 'environ'),
        tmuxServer: processesWith(`muster-${teamName}`, 'cmdline'),
      }).toEqual({ sleeps: [], teammates: [], tmuxServer: [] });
    } catch (error) {
      throw new Error(`${(error as Error).message}\nlead output:\n${output}`, { cause: error });
    } finally {
      lead.kill('SIGKILL');
    }
  }, 90_000);
});
