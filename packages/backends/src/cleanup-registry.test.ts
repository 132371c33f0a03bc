// R32: a lead that started processes (a TERM/HUP-ignoring tree in its own group plus one in a
// new session, and a private tmux server) leaves 0 of them behind when it ends by SIGINT,
// SIGTERM, SIGHUP, an uncaught exception, an unhandled rejection or a plain process.exit.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { makeTempDirectory } from '@muster/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { handleSignalsInHost, registerCleanup } from './cleanup-registry.js';
import { isSameProcess, readProcessIdentity, type ProcessIdentity } from './process-control.js';

const distUrl = new URL('../dist/index.js', import.meta.url).href;
const hasTmux = spawnSync('tmux', ['-V']).status === 0;
const strays: number[] = [];
const tmuxSockets: string[] = [];

afterEach(() => {
  for (const pid of strays.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
  for (const socket of tmuxSockets.splice(0))
    spawnSync('tmux', ['-L', socket, 'kill-server'], { stdio: 'ignore' });
});

// The lead: starts its processes, registers their cleanup, prints their pids, then ends as told.
const leadScript = `
import { execFileSync, spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { isSameProcess, killProcessTree, readProcessIdentity, registerCleanup, setCleanupDeadline } from ${JSON.stringify(distUrl)};
const [mode, marker, tmuxSocket] = process.argv.slice(2);
setCleanupDeadline(5000);
const tree = spawn('sh', ['-c', "trap '' HUP TERM; sleep 1000 & echo $!; setsid sleep 1000 & echo $!; wait"], { detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
const pids = await new Promise((resolve) => {
  let output = '';
  tree.stdout.on('data', (chunk) => {
    output += chunk;
    const found = output.split('\\n').filter(Boolean).map(Number);
    if (found.length >= 2) resolve([tree.pid, ...found]);
  });
});
await new Promise((resolve) => setTimeout(resolve, 100));
const identities = pids.map((pid) => readProcessIdentity(pid)).filter(Boolean);
registerCleanup('member tree', async () => {
  await killProcessTree(identities[0], { graceMs: 200 });
  appendFileSync(marker, 'async member tree\\n');
}, { sync: () => {
  for (const identity of identities) if (isSameProcess(identity)) process.kill(identity.pid, 'SIGKILL');
  appendFileSync(marker, 'sync member tree\\n');
} });
let serverPid;
if (tmuxSocket) {
  execFileSync('tmux', ['-L', tmuxSocket, '-f', '/dev/null', 'new-session', '-d', 'sleep 1000']);
  serverPid = Number(execFileSync('tmux', ['-L', tmuxSocket, 'display-message', '-p', '#{pid}'], { encoding: 'utf8' }).trim());
  const killServer = () => { try { execFileSync('tmux', ['-L', tmuxSocket, 'kill-server'], { stdio: 'ignore' }); } catch {} };
  registerCleanup('tmux server', async () => { killServer(); appendFileSync(marker, 'async tmux\\n'); }, { sync: killServer });
}
setInterval(() => {}, 60000);
process.stdout.write(JSON.stringify({ pids, serverPid }) + '\\n');
if (mode === 'throw') setTimeout(() => { throw new Error('lead crashed on purpose'); }, 50);
if (mode === 'reject') setTimeout(() => { void Promise.reject(new Error('lead rejected on purpose')); }, 50);
if (mode === 'exit') setTimeout(() => process.exit(0), 50);
`;

interface LeadRun {
  code: number | null;
  signal: string | null;
  stderr: string;
  marker: string;
  processes: ProcessIdentity[];
}

async function runLead(mode: string, signal?: NodeJS.Signals): Promise<LeadRun> {
  const folder = await makeTempDirectory();
  const script = path.join(folder, 'lead.mjs');
  const marker = path.join(folder, 'marker.txt');
  writeFileSync(script, leadScript);
  writeFileSync(marker, '');
  const socket = `muster-test-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const args = [script, mode, marker];
  if (hasTmux) {
    args.push(socket);
    tmuxSockets.push(socket);
  }
  const lead = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  strays.push(lead.pid as number);
  let stderr = '';
  lead.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exit = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    lead.once('exit', (code, exitSignal) => resolve({ code, signal: exitSignal })),
  );
  const started = await new Promise<{ pids: number[]; serverPid?: number }>((resolve, reject) => {
    let output = '';
    lead.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('\n'))
        resolve(JSON.parse(output.split('\n')[0] as string) as { pids: number[] });
    });
    void exit.then(() => reject(new Error(`lead ended before starting its processes: ${stderr}`)));
  });
  const pids = [...started.pids, ...(started.serverPid === undefined ? [] : [started.serverPid])];
  strays.push(...pids);
  const processes = pids
    .map((pid) => readProcessIdentity(pid))
    .filter((entry) => entry !== undefined);
  expect(processes.length).toBe(pids.length);
  if (signal !== undefined) lead.kill(signal);
  const result = await Promise.race([
    exit,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error('lead did not end within 20 s')), 20_000),
    ),
  ]);
  return { ...result, stderr, marker: readFileSync(marker, 'utf8'), processes };
}

async function survivors(processes: ProcessIdentity[]): Promise<ProcessIdentity[]> {
  for (let waited = 0; waited < 10_000; waited += 50) {
    if (processes.every((entry) => !isSameProcess(entry))) return [];
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return processes.filter((entry) => isSameProcess(entry));
}

describe('registerCleanup (R32)', () => {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    it(`${signal}: cleanups run, the lead ends by ${signal}, 0 processes and 0 tmux servers survive`, async () => {
      const run = await runLead('wait', signal);
      expect(run.signal).toBe(signal);
      expect(run.marker).toContain('async member tree');
      if (hasTmux) expect(run.marker).toContain('async tmux');
      expect(await survivors(run.processes)).toEqual([]);
    });
  }

  for (const mode of ['throw', 'reject'] as const) {
    it(`${mode === 'throw' ? 'uncaught exception' : 'unhandled rejection'}: error shown, cleanups run, exit code 1, 0 survivors`, async () => {
      const run = await runLead(mode);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/lead (crashed|rejected) on purpose/);
      expect(run.marker).toContain('async member tree');
      expect(await survivors(run.processes)).toEqual([]);
    });
  }

  it("process.exit: the sync parts run in 'exit', 0 survivors", async () => {
    const run = await runLead('exit');
    expect(run.code).toBe(0);
    expect(run.marker).toBe('sync member tree\n');
    expect(await survivors(run.processes)).toEqual([]);
  });
});

describe('a process that registered nothing keeps Node behaviour', () => {
  const plain = (body: string): ReturnType<typeof spawnSync> =>
    spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import * as backends from ${JSON.stringify(distUrl)};\n${body}`,
      ],
      {
        encoding: 'utf8',
        timeout: 20_000,
      },
    );

  it('SIGTERM still ends it by SIGTERM; an uncaught error still prints and exits 1', () => {
    const term = plain(`setInterval(() => {}, 1000); process.kill(process.pid, 'SIGTERM');`);
    expect(term.signal).toBe('SIGTERM');
    const thrown = plain(
      `const off = backends.registerCleanup('x', () => {}); off(); throw new Error('plain crash');`,
    );
    expect(thrown.status).toBe(1);
    expect(String(thrown.stderr)).toContain('plain crash');
    expect(String(thrown.stderr)).not.toContain('muster cleanup');
  });
});

describe('registerCleanup beside in-process members (R30)', () => {
  it('an error thrown in a member is the member’s: no cleanup, the lead goes on; an error of the lead ends it', () => {
    const body = `
import { appendFileSync } from 'node:fs';
import { createInProcessBackend, registerCleanup } from ${JSON.stringify(distUrl)};
const log = (line) => process.stdout.write(line + '\\n');
registerCleanup('lead resources', () => log('cleanup ran'));
const backend = createInProcessBackend({ onCrash: (agentId, error) => log('contained ' + agentId + ': ' + error.message) });
const member = await backend.spawn({
  root: '/tmp', teamName: 'alpha', agentName: 'worker', agentId: 'worker@alpha', cwd: '/tmp',
  run: async (context) => {
    context.ready();
    setTimeout(() => { throw new Error('member failure'); }, 10);
    await new Promise((resolve) => context.signal.addEventListener('abort', resolve));
  },
});
await member.ready;
const exit = await member.exited;
log('member ' + exit.reason);
await new Promise((resolve) => setTimeout(resolve, 100));
log('lead still running');
setTimeout(() => { throw new Error('lead failure'); }, 10);
setInterval(() => {}, 1000);
`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', body], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(run.stdout).toContain('contained worker@alpha: member failure');
    expect(run.stdout).toContain('member crashed');
    expect(run.stdout.indexOf('lead still running')).toBeLessThan(
      run.stdout.indexOf('cleanup ran'),
    );
    expect(run.stdout).toContain('cleanup ran');
    expect(run.stderr).toContain('lead failure');
    expect(run.status).toBe(1);
  });
});

describe('handleSignalsInHost', () => {
  it('takes the signal handlers away while a host handles signals, and gives them back', () => {
    const before = process.listenerCount('SIGINT');
    const crashBefore = process.listenerCount('uncaughtException');
    const unregister = registerCleanup('host-signal test', () => undefined);
    try {
      expect(process.listenerCount('SIGINT')).toBe(before + 1);
      const release = handleSignalsInHost();
      expect(process.listenerCount('SIGINT')).toBe(before);
      // The crash handlers stay.
      expect(process.listenerCount('uncaughtException')).toBe(crashBefore + 1);
      const nested = handleSignalsInHost();
      release();
      release();
      expect(process.listenerCount('SIGINT')).toBe(before);
      nested();
      expect(process.listenerCount('SIGINT')).toBe(before + 1);
    } finally {
      unregister();
    }
    expect(process.listenerCount('SIGINT')).toBe(before);
  });

  it('a cleanup registered while a host handles signals installs no signal handler', () => {
    const before = process.listenerCount('SIGTERM');
    const release = handleSignalsInHost();
    const unregister = registerCleanup('host-signal test 2', () => undefined);
    try {
      expect(process.listenerCount('SIGTERM')).toBe(before);
    } finally {
      unregister();
      release();
    }
    expect(process.listenerCount('SIGTERM')).toBe(before);
  });
});
