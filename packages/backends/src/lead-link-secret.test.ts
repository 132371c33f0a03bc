// The lead link trusts a hello only with the secret the backend made for that member: a
// process that merely inherited MUSTER_LEAD_SOCKET and MUSTER_AGENT_ID (a member's own Bash
// command) cannot claim the member's ready.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempDirectory } from '@muster/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { createLeadLink, type LeadLink } from './lead-link.js';
import {
  AGENT_ID_VARIABLE,
  LEAD_SOCKET_VARIABLE,
  MEMBER_SECRET_VARIABLE,
} from './lead-link-messages.js';
import { createMemberSecret } from './lead-link-secret.js';

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

// What a member's Bash command could do with what it inherited: connect to the socket and
// replay a hello as the member (with whatever secret it has, if any), then say ready. It
// prints the lead's answer and exits when the connection closes.
const REPLAY = `
const net = require('node:net');
const hello = { type: 'hello', agentId: process.env.MUSTER_AGENT_ID, pid: process.pid };
if (process.env.MUSTER_MEMBER_SECRET) hello.secret = process.env.MUSTER_MEMBER_SECRET;
const socket = net.connect(process.env.MUSTER_LEAD_SOCKET, () => {
  socket.write(JSON.stringify(hello) + '\\n' + JSON.stringify({ type: 'ready' }) + '\\n');
});
let answer = '';
socket.on('data', (chunk) => { answer += chunk; });
socket.on('close', () => { process.stdout.write(answer); });
socket.on('error', () => {});
`;

/** Runs the replay as a Bash command would run it; resolves with the lead's answer. */
function replayFromBash(environment: Record<string, string | undefined>): Promise<string> {
  const child = spawn('bash', ['-c', `exec "${process.execPath}" -e "$REPLAY"`], {
    detached: true,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...environment, REPLAY },
  });
  started.push(child);
  let output = '';
  child.stdout?.setEncoding('utf8');
  child.stdout?.on('data', (chunk: string) => {
    output += chunk;
  });
  return new Promise((resolve) => child.once('close', () => resolve(output)));
}

async function linkWithLog(): Promise<{ link: LeadLink; logged: string[] }> {
  const folder = path.join(await makeTempDirectory(), 'teams', 'alpha');
  await mkdir(folder, { recursive: true });
  const logged: string[] = [];
  const link = await createLeadLink({ teamFolder: folder, log: (line) => logged.push(line) });
  links.push(link);
  return { link, logged };
}

describe('lead link member secret', () => {
  it('refuses a replayed hello with no secret or a wrong one; ready comes only from the real member', async () => {
    const { link, logged } = await linkWithLog();
    const memberEnvironment = link.memberEnvironment('worker@alpha');
    const secret = memberEnvironment[MEMBER_SECRET_VARIABLE] as string;
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(memberEnvironment[LEAD_SOCKET_VARIABLE]).toBe(link.socketPath);
    expect(memberEnvironment[AGENT_ID_VARIABLE]).toBe('worker@alpha');
    const inherited = { ...process.env, ...memberEnvironment };

    // A member's Bash command that kept the socket and agent id but not the secret (a tool
    // environment from @muster/query's scrubEnvironment has none of the three; its own test
    // shows that).
    const withoutSecret: Record<string, string | undefined> = { ...inherited };
    delete withoutSecret[MEMBER_SECRET_VARIABLE];
    expect(await replayFromBash(withoutSecret)).toMatch(/"refused".*without the member secret/);
    expect(
      await replayFromBash({ ...withoutSecret, [MEMBER_SECRET_VARIABLE]: createMemberSecret() }),
    ).toMatch(/"refused".*wrong member secret/);
    expect(link.isConnected('worker@alpha')).toBe(false);
    expect(link.isReady('worker@alpha')).toBe(false);
    // Logged with the agent id, never with a secret.
    expect(logged.join('\n')).toMatch(/worker@alpha .*without the member secret/);
    expect(logged.join('\n')).toMatch(/worker@alpha .*wrong member secret/);
    expect(logged.join('\n')).not.toContain(secret);

    // The real member, with its secret, is accepted and its ready counts.
    const member = spawn(process.execPath, [memberFixture, 'idle'], {
      detached: true,
      stdio: 'ignore',
      env: inherited,
    });
    started.push(member);
    await link.waitForReady('worker@alpha', { timeoutMs: 15_000 });
    expect(link.isReady('worker@alpha')).toBe(true);
    // The secret is used up: even an exact copy of it is refused now.
    expect(await replayFromBash(inherited)).toMatch(/"refused"/);
  });

  it('refuses an agent id it was never told to expect', async () => {
    const { link, logged } = await linkWithLog();
    const answer = await replayFromBash({
      ...process.env,
      [LEAD_SOCKET_VARIABLE]: link.socketPath,
      [AGENT_ID_VARIABLE]: 'stranger@alpha',
      [MEMBER_SECRET_VARIABLE]: createMemberSecret(),
    });
    expect(answer).toMatch(/"refused".*no member stranger@alpha is expected/);
    expect(logged.join('\n')).toMatch(/stranger@alpha/);
    expect(link.isConnected('stranger@alpha')).toBe(false);
  });
});
