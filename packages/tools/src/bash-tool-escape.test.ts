// Hostile commands: each starts something meant to outlive the call and returns at once.
// muster's guarantee: when the call ends, the command's process group is gone, and so is
// every process still carrying the command's marker variable (setsid, nohup, double forks).
// Checked through /proc by command line, independently of the marker.
import { realpathSync } from 'node:fs';
import { makeTempDirectory } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import type { BashResultData } from './bash-tool.js';
import { createBashTool } from './bash-tool.js';
import { processesWith, trackSleepTokens } from './bash-tool-test-processes.js';
import { createTestToolContext } from './test-support.js';

const token = trackSleepTokens();

async function run(command: (seconds: string) => string) {
  const seconds = token();
  const cwd = realpathSync(await makeTempDirectory('muster-bash-escape-'));
  const test = createTestToolContext({ cwd });
  const tool = createBashTool({ outputRoot: cwd, killGraceMs: 300 });
  const result = await tool.call({ command: command(seconds) }, test.context);
  return { result, seconds, data: result.data as BashResultData };
}

describe('Bash: nothing a command starts outlives the call', () => {
  // Each command waits until what it started really left its session (so the test does not
  // pass by ending the process before it escaped), then returns.
  const escaped = (seconds: string) =>
    `for i in $(seq 250); do for p in $(pgrep -f "sleep ${seconds}"); do ` +
    `[ "$(ps -o sid= -p $p)" != "$(ps -o sid= -p $$)" ] && break 2; done; sleep 0.02; done; echo started`;
  const cases: Array<[string, (seconds: string) => string]> = [
    ['a plain background job', (seconds) => `sleep ${seconds} & echo started`],
    ['nohup', (seconds) => `nohup sleep ${seconds} >/dev/null 2>&1 & echo started`],
    ['a double fork with disown', (seconds) => `(sleep ${seconds} & disown) ; echo started`],
    [
      'setsid (a new session and group)',
      (seconds) => `setsid sleep ${seconds} >/dev/null 2>&1 & ${escaped(seconds)}`,
    ],
    [
      'setsid --fork',
      (seconds) => `setsid -f sleep ${seconds} >/dev/null 2>&1; ${escaped(seconds)}`,
    ],
    [
      'setsid with SIGTERM and SIGHUP ignored',
      (seconds) =>
        `setsid -f bash -c "trap '' TERM HUP; sleep ${seconds}" >/dev/null 2>&1; ${escaped(seconds)}`,
    ],
    [
      'a daemon that forks again after setsid',
      (seconds) =>
        `setsid -f bash -c 'sleep ${seconds} & sleep ${seconds} & wait' >/dev/null 2>&1; ${escaped(seconds)}`,
    ],
  ];

  for (const [name, command] of cases) {
    it(`ends ${name}`, async () => {
      const { result, seconds, data } = await run(command);
      expect(result.content).toMatch(/^started\n/);
      expect(result.content).toMatch(
        /left \d+ process\(es\) running when it returned; muster ended them/,
      );
      expect(data.outcome?.leftoversEnded).toBeGreaterThanOrEqual(1);
      expect(processesWith(seconds)).toEqual([]);
    });
  }

  it('says nothing about leftovers when there were none', async () => {
    const { result, data } = await run(() => 'echo started');
    expect(result.content).toBe('started');
    expect(data.outcome?.leftoversEnded).toBe(0);
  });
});
