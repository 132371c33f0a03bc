// R30: an error escaping a member's code ends that member only; the lead and the other members
// keep running. Runs in a real lead process (test-fixtures/in-process-lead.mjs, importing dist),
// because a test runner's own crash listeners would hide what a plain Node process does.
import { fileURLToPath } from 'node:url';
import { makeTempDirectory, startNodeProcess } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';

const fixture = fileURLToPath(new URL('../test-fixtures/in-process-lead.mjs', import.meta.url));

async function runLead(mode: string) {
  const folder = await makeTempDirectory('muster-crash-');
  const lead = startNodeProcess(fixture, [mode, folder]);
  const timer = setTimeout(() => lead.child.kill('SIGKILL'), 30_000);
  const result = await lead.exited;
  clearTimeout(timer);
  const events = result.stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { ...result, events };
}

describe('crash containment (R30)', () => {
  it('a throw in a member timer and a rejection a member left unhandled end those members only', async () => {
    const { code, stderr, events } = await runLead('member-crashes');
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const crashes = events.filter((event) => event['event'] === 'crash');
    expect(crashes).toEqual([
      {
        event: 'crash',
        agentId: 'thrower@crash-team',
        error: 'Error: thrown in a member timer',
        origin: 'uncaughtException',
        seenAs: 'thrower@crash-team',
      },
      {
        event: 'crash',
        agentId: 'rejecter@crash-team',
        error: 'Error: left unhandled by a member',
        origin: 'unhandledRejection',
        seenAs: 'rejecter@crash-team',
      },
    ]);
    const exits = events.filter((event) => event['event'] === 'exit');
    expect(exits.map((exit) => exit['reason'])).toEqual(['crashed', 'crashed']);
    expect(exits[0]?.['message']).toMatch(
      /thrower@crash-team crashed: an uncaught exception in its code: Error: thrown in a member timer/,
    );
    // The other members kept running after the crashes, and the lead lived on to close them.
    const summary = events.find((event) => event['event'] === 'summary');
    expect(summary).toEqual({
      event: 'summary',
      ticksAfterCrash: { 'steady-one': expect.any(Number), 'steady-two': expect.any(Number) },
      steadyAlive: [true, true],
    });
    const ticks = summary?.['ticksAfterCrash'] as Record<string, number>;
    expect(ticks['steady-one']).toBeGreaterThanOrEqual(10);
    expect(ticks['steady-two']).toBeGreaterThanOrEqual(10);
    expect(events.at(-1)).toEqual({ event: 'closed', uncaughtListeners: 0 });
  });

  it('an exception in the lead itself still ends the process as Node would (exit 1, the stack on stderr)', async () => {
    const { code, stderr, events } = await runLead('lead-throws');
    expect(events).toEqual([{ event: 'ready' }]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/Error: the lead itself failed\n\s+at /);
  });

  it('a rejection the lead left unhandled still ends the process (exit 1)', async () => {
    const { code, stderr } = await runLead('lead-rejects');
    expect(code).toBe(1);
    expect(stderr).toMatch(/Error: the lead left a rejection unhandled/);
  });
});

describe('lead ending by a signal (R32)', () => {
  it('SIGTERM to the lead aborts each in-process member first, so the tool groups they started end too', async () => {
    const folder = await makeTempDirectory('muster-crash-');
    const lead = startNodeProcess(fixture, ['tool-running', folder]);
    let toolPid = 0;
    try {
      const line = await lead.waitForLine((text) => text.includes('"event":"tool"'), 30_000);
      toolPid = (JSON.parse(line) as { pid: number }).pid;
      await lead.waitForLine((text) => text.includes('"event":"ready"'), 30_000);
      expect(isRunning(toolPid)).toBe(true);
      lead.child.kill('SIGTERM');
      const result = await lead.exited;
      expect(result.signal ?? String(result.code)).toMatch(/SIGTERM|143/);
      expect(result.stdout).toContain('"event":"aborted","agentId":"tool-user@crash-team"');
      for (let waited = 0; isRunning(toolPid) && waited < 10_000; waited += 20) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(isRunning(toolPid)).toBe(false);
    } finally {
      lead.child.kill('SIGKILL');
      if (toolPid > 0 && isRunning(toolPid)) process.kill(-toolPid, 'SIGKILL');
    }
  });
});

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
