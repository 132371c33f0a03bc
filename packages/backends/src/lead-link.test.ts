import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempDirectory } from '@muster/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { BackendError } from './backend-error.js';
import { createLeadLink, type LeadLink } from './lead-link.js';
import { MEMBER_SECRET_VARIABLE } from './lead-link-messages.js';
import { connectToLead } from './member-link.js';

const memberFixture = fileURLToPath(new URL('../test-fixtures/member.mjs', import.meta.url));
const started: ChildProcess[] = [];
const links: LeadLink[] = [];

afterEach(async () => {
  for (const child of started.splice(0)) {
    if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
  }
  for (const link of links.splice(0)) await link.close();
});

function startMember(link: LeadLink, agentId: string, args: string[]): ChildProcess {
  const child = spawn(process.execPath, [memberFixture, ...args], {
    detached: true,
    stdio: 'ignore',
    env: { ...process.env, ...link.memberEnvironment(agentId) },
  });
  started.push(child);
  return child;
}

function exitOf(child: ChildProcess): Promise<{ code: number | null; signal: string | null }> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  }
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

async function teamFolder(): Promise<string> {
  const folder = path.join(await makeTempDirectory(), 'teams', 'alpha');
  await mkdir(folder, { recursive: true });
  return folder;
}

describe('lead link', () => {
  it('listens on <team>/.lead.sock with mode 0600 and resolves ready when a member says so', async () => {
    const folder = await teamFolder();
    const link = await createLeadLink({ teamFolder: folder });
    links.push(link);
    expect(link.socketPath).toBe(path.join(folder, '.lead.sock'));
    expect(statSync(link.socketPath).mode & 0o777).toBe(0o600);
    startMember(link, 'one@alpha', ['idle']);
    await link.waitForReady('one@alpha', { timeoutMs: 15_000 });
    expect(link.isConnected('one@alpha')).toBe(true);
    expect(link.isReady('one@alpha')).toBe(true);
    // Already ready: resolves at once.
    await link.waitForReady('one@alpha', { timeoutMs: 1 });
  });

  it('a member that never says ready fails waitForReady with NOT_READY', async () => {
    const link = await createLeadLink({ teamFolder: await teamFolder() });
    links.push(link);
    startMember(link, 'slow@alpha', ['never-ready']);
    // Connected (hello accepted) first: node may take seconds to start on a loaded machine.
    for (let waited = 0; waited < 15_000 && !link.isConnected('slow@alpha'); waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(link.isConnected('slow@alpha')).toBe(true);
    const error = await link
      .waitForReady('slow@alpha', { timeoutMs: 1_500 })
      .catch((caught: unknown) => caught);
    expect(BackendError.hasCode(error, 'NOT_READY')).toBe(true);
    expect(link.isConnected('slow@alpha')).toBe(true);
  });

  it('a member that exits is reported as a disconnect with its exit code intact', async () => {
    const link = await createLeadLink({ teamFolder: await teamFolder() });
    links.push(link);
    const gone: string[] = [];
    link.onDisconnect((agentId) => gone.push(agentId));
    const child = startMember(link, 'quick@alpha', ['exit', '3']);
    await link.waitForReady('quick@alpha', { timeoutMs: 15_000 });
    expect((await exitOf(child)).code).toBe(3);
    for (let waited = 0; waited < 10_000 && gone.length === 0; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(gone).toEqual(['quick@alpha']);
    expect(link.isConnected('quick@alpha')).toBe(false);
  });

  it('refuses a second hello for a connected agent id', async () => {
    const logged: string[] = [];
    const link = await createLeadLink({
      teamFolder: await teamFolder(),
      log: (line) => logged.push(line),
    });
    links.push(link);
    const secret = link.memberEnvironment('twin@alpha')[MEMBER_SECRET_VARIABLE];
    await connectToLead({
      socketPath: link.socketPath,
      agentId: 'twin@alpha',
      secret,
      onLeadGone: () => {},
    });
    await link.waitForReady('twin@alpha', { timeoutMs: 50 }).catch(() => {});
    expect(link.isConnected('twin@alpha')).toBe(true);
    const reasons: string[] = [];
    await connectToLead({
      socketPath: link.socketPath,
      agentId: 'twin@alpha',
      secret,
      onLeadGone: (reason) => reasons.push(reason),
    });
    for (let waited = 0; waited < 10_000 && reasons.length === 0; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(reasons[0]).toMatch(/refused.*already connected/);
    expect(logged.join('\n')).toMatch(/twin@alpha .* already connected/);
    expect(link.isConnected('twin@alpha')).toBe(true);
  });

  it('closing the link ends connected members (they lose their lead)', async () => {
    const folder = await teamFolder();
    const link = await createLeadLink({ teamFolder: folder });
    const child = startMember(link, 'one@alpha', ['ignore-term']);
    await link.waitForReady('one@alpha', { timeoutMs: 15_000 });
    await link.close();
    const exit = await exitOf(child);
    expect(exit.code).toBe(143);
    expect(existsSync(link.socketPath)).toBe(false);
  });

  it('a team folder too deep for sun_path gets a temp socket and a pointer file', async () => {
    const base = await makeTempDirectory();
    const folder = path.join(base, 'x'.repeat(60), 'y'.repeat(40), 'teams', 'alpha');
    await mkdir(folder, { recursive: true });
    const link = await createLeadLink({ teamFolder: folder });
    links.push(link);
    expect(Buffer.byteLength(link.socketPath)).toBeLessThanOrEqual(107);
    const pointer = JSON.parse(readFileSync(path.join(folder, 'lead-link.json'), 'utf8')) as {
      socketPath: string;
    };
    expect(pointer.socketPath).toBe(link.socketPath);
    startMember(link, 'deep@alpha', ['idle']);
    await link.waitForReady('deep@alpha', { timeoutMs: 15_000 });
    await link.close();
    expect(existsSync(path.join(folder, 'lead-link.json'))).toBe(false);
  });

  it('a second lead on the same folder is refused while the first listens', async () => {
    const folder = await teamFolder();
    const first = await createLeadLink({ teamFolder: folder });
    links.push(first);
    const error = await createLeadLink({ teamFolder: folder }).catch((caught: unknown) => caught);
    expect(BackendError.hasCode(error, 'LINK_FAILED')).toBe(true);
    expect(String(error)).toMatch(/already listening/);
  });

  it('a socket left by a lead that was SIGKILLed is replaced', async () => {
    const folder = await teamFolder();
    const socketPath = path.join(folder, '.lead.sock');
    const script = `require('node:net').createServer().listen(${JSON.stringify(socketPath)}, () => process.stdout.write('up\\n'));`;
    const stale = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    started.push(stale);
    await new Promise((resolve) => stale.stdout?.once('data', resolve));
    stale.kill('SIGKILL');
    await exitOf(stale);
    expect(existsSync(socketPath)).toBe(true);
    const link = await createLeadLink({ teamFolder: folder });
    links.push(link);
    startMember(link, 'after@alpha', ['idle']);
    await link.waitForReady('after@alpha', { timeoutMs: 15_000 });
  });

  it('connecting without a socket says which variable to set; a dead socket is LINK_FAILED naming it', async () => {
    const missing = await connectToLead({ socketPath: '', agentId: 'a@b' }).catch(
      (caught: unknown) => caught,
    );
    expect(String(missing)).toMatch(/MUSTER_LEAD_SOCKET/);
    const socketPath = path.join(await makeTempDirectory(), 'nothing.sock');
    const noSecret = await connectToLead({ socketPath, agentId: 'a@b', secret: '' }).catch(
      (caught: unknown) => caught,
    );
    expect(String(noSecret)).toMatch(/MUSTER_MEMBER_SECRET/);
    const dead = await connectToLead({ socketPath, agentId: 'a@b', secret: 'x'.repeat(43) }).catch(
      (caught: unknown) => caught,
    );
    expect(BackendError.hasCode(dead, 'LINK_FAILED')).toBe(true);
    expect(String(dead)).toContain(socketPath);
  });
});

describe('shared lead link', () => {
  it('acquireLeadLink shares one socket per team folder and closes it with the last reference', async () => {
    const { acquireLeadLink } = await import('./lead-link-shared.js');
    const folder = await teamFolder();
    const first = await acquireLeadLink({ teamFolder: folder });
    const second = await acquireLeadLink({ teamFolder: folder });
    expect(second.socketPath).toBe(first.socketPath);
    await first.close();
    await first.close();
    expect(existsSync(second.socketPath)).toBe(true);
    startMember(second, 'one@alpha', ['idle']);
    await second.waitForReady('one@alpha', { timeoutMs: 15_000 });
    await second.close();
    expect(existsSync(second.socketPath)).toBe(false);
  });
});
