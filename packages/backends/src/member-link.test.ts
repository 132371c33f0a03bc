// R31: a lead process with members connected over the lead link is SIGKILLed (nothing of it
// runs any more); every member, including TERM-ignoring ones and their grandchildren in
// another session, is gone soon after. The detection latency is printed, never asserted.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempDirectory } from '@muster/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { createLeadLink } from './lead-link.js';
import { isSameProcess, readProcessIdentity, type ProcessIdentity } from './process-control.js';

const distUrl = new URL('../dist/index.js', import.meta.url).href;
const memberFixture = fileURLToPath(new URL('../test-fixtures/member.mjs', import.meta.url));
const strays: number[] = [];

afterEach(() => {
  for (const pid of strays.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
});

// The lead: opens the link, starts one member per mode (each leads its own group), waits for
// every ready, prints the member pids, then idles until it is killed.
const leadScript = `
import { spawn } from 'node:child_process';
import { createLeadLink } from ${JSON.stringify(distUrl)};
const [teamFolder, logFolder, ...modes] = process.argv.slice(2);
const link = await createLeadLink({ teamFolder });
const pids = [];
for (const [index, mode] of modes.entries()) {
  const agentId = 'member' + index + '@alpha';
  const child = spawn(process.execPath, [${JSON.stringify(memberFixture)}, mode], {
    detached: true,
    stdio: 'ignore',
    env: { ...process.env, ...link.memberEnvironment(agentId), MEMBER_FIXTURE_LOG: logFolder + '/' + agentId + '.log' },
  });
  child.unref();
  pids.push(child.pid);
  await link.waitForReady(agentId, { timeoutMs: 15000 });
}
setInterval(() => {}, 60000);
process.stdout.write(JSON.stringify({ pids }) + '\\n');
`;

interface FixtureEvent {
  event: string;
  pids?: number[];
  at: number;
}

function readEvents(file: string): FixtureEvent[] {
  try {
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as FixtureEvent);
  } catch {
    return [];
  }
}

describe('member link (R31)', () => {
  it('a SIGKILLed lead leaves no member and no grandchild behind', async () => {
    const root = await makeTempDirectory();
    const teamFolder = path.join(root, 'teams', 'alpha');
    await mkdir(teamFolder, { recursive: true });
    const script = path.join(root, 'lead.mjs');
    writeFileSync(script, leadScript);
    const modes = ['idle', 'grandchild', 'ignore-term'];
    const lead = spawn(process.execPath, [script, teamFolder, root, ...modes], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    strays.push(lead.pid as number);
    const { pids } = await new Promise<{ pids: number[] }>((resolve, reject) => {
      let output = '';
      lead.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('\n'))
          resolve(JSON.parse(output.split('\n')[0] as string) as { pids: number[] });
      });
      lead.once('exit', () => reject(new Error('the lead ended before its members were ready')));
    });
    const logs = modes.map((_, index) => path.join(root, `member${index}@alpha.log`));
    const grandchildren = logs.flatMap(
      (file) => readEvents(file).find((entry) => entry.event === 'grandchildren')?.pids ?? [],
    );
    expect(grandchildren).toHaveLength(3);
    strays.push(...pids, ...grandchildren);
    const processes = [...pids, ...grandchildren]
      .map((pid) => readProcessIdentity(pid))
      .filter((entry): entry is ProcessIdentity => entry !== undefined);
    expect(processes).toHaveLength(6);

    const killedAt = Date.now();
    lead.kill('SIGKILL');
    let allGoneAt: number | undefined;
    for (let waited = 0; waited < 10_000; waited += 20) {
      if (processes.every((entry) => !isSameProcess(entry))) {
        allGoneAt = Date.now();
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const survivors = processes.filter((entry) => isSameProcess(entry)).map((entry) => entry.pid);
    expect(survivors).toEqual([]);
    const detections = logs.map(
      (file) => readEvents(file).find((entry) => entry.event === 'lead-gone')?.at,
    );
    expect(detections.every((at) => at !== undefined)).toBe(true);
    const latencies = detections.map((at) => (at as number) - killedAt);
    process.stdout.write(
      `R31: lead SIGKILLed with ${modes.length} members (${modes.join(', ')}) and ${grandchildren.length} grandchildren: ` +
        `members noticed after ${latencies.join(' / ')} ms; all ${processes.length} processes gone after ${(allGoneAt as number) - killedAt} ms\n`,
    );
  });
});

describe('member link: a member ends what it started', () => {
  for (const signal of ['SIGHUP', 'SIGTERM'] as const) {
    it(`${signal} to the member alone (its pane or terminal closed) ends its grandchildren too`, async () => {
      const root = await makeTempDirectory();
      const teamFolder = path.join(root, 'teams', 'alpha');
      await mkdir(teamFolder, { recursive: true });
      const link = await createLeadLink({ teamFolder });
      try {
        const logFile = path.join(root, 'member.log');
        const member = spawn(process.execPath, [memberFixture, 'grandchild'], {
          detached: true,
          stdio: 'ignore',
          env: {
            ...process.env,
            ...link.memberEnvironment('one@alpha'),
            MEMBER_FIXTURE_LOG: logFile,
          },
        });
        strays.push(member.pid as number);
        await link.waitForReady('one@alpha', { timeoutMs: 15_000 });
        const grandchildren =
          readEvents(logFile).find((entry) => entry.event === 'grandchildren')?.pids ?? [];
        strays.push(...grandchildren);
        const processes = [member.pid as number, ...grandchildren]
          .map((pid) => readProcessIdentity(pid))
          .filter((entry): entry is ProcessIdentity => entry !== undefined);
        expect(processes).toHaveLength(4);
        const exit = new Promise<string | null>((resolve) =>
          member.once('exit', (_code, exitSignal) => resolve(exitSignal)),
        );
        process.kill(member.pid as number, signal);
        expect(await exit).toBe(signal);
        for (
          let waited = 0;
          waited < 10_000 && processes.some((entry) => isSameProcess(entry));
          waited += 50
        ) {
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        expect(processes.filter((entry) => isSameProcess(entry)).map((entry) => entry.pid)).toEqual(
          [],
        );
      } finally {
        await link.close();
      }
    });
  }
});
