// A lead process SIGKILLed with tmux members on its private server: nothing of the team is
// left, neither members, their grandchildren, the server nor the lead's control-mode client
// (R31, R21).
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  killTestServer,
  makeTeamRoot,
  pollUntil,
  processRuns,
  testSocketName,
  tmuxOn,
} from './tmux-test-support.js';

const TEAM = 'doomed';
const fixtures = new URL('../test-fixtures/', import.meta.url).pathname;
let socketName: string;
let team: ReturnType<typeof makeTeamRoot>;
let logFile: string;

beforeEach(() => {
  socketName = testSocketName();
  team = makeTeamRoot(TEAM);
  logFile = join(team.root, 'members.log');
});

afterEach(() => {
  killTestServer(socketName);
  team.remove();
});

function logged(event: string): Record<string, unknown>[] {
  if (!existsSync(logFile)) return [];
  return readFileSync(logFile, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((entry) => entry.event === event);
}

/** Children of `parentPid` whose command line holds `word`. */
function childrenRunning(parentPid: number, word: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const commandLine = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (parent === parentPid && commandLine.includes(word)) found.push(Number(entry));
    } catch {
      // Gone while we looked.
    }
  }
  return found;
}

describe('a SIGKILLed lead with tmux members (R31, R21)', () => {
  it('leaves no member, no grandchild and no private tmux server behind', async () => {
    const lead = spawn(
      process.execPath,
      [join(fixtures, 'tmux-lead.mjs'), socketName, team.root, TEAM, 'grandchild', 'ignore-term'],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
        env: { ...process.env, MEMBER_FIXTURE_LOG: logFile },
      },
    );
    try {
      let output = '';
      lead.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const started = await pollUntil(
        'the lead to report its members',
        () => output.includes('\n') && output,
        30_000,
      );
      const report = JSON.parse(started) as { serverPid: number; members: { panePid: number }[] };
      const grandchildren = logged('grandchildren')[0]?.pids as number[];
      // The backend's control-mode client (`tmux -C attach-session`), a child of the lead.
      const controlClients = childrenRunning(lead.pid as number, 'attach-session');
      expect(controlClients).toHaveLength(1);
      const watched = [
        ...controlClients,
        report.serverPid,
        ...report.members.map((member) => member.panePid),
        ...grandchildren,
      ];
      expect(watched.every((pid) => processRuns(pid))).toBe(true);
      const killedAt = Date.now();
      lead.kill('SIGKILL');
      const survivors = await pollUntil(
        'everything of the team to end',
        () => (watched.every((pid) => !processRuns(pid)) ? [] : undefined),
        10_000,
      ).catch(() => watched.filter((pid) => processRuns(pid)));
      console.log(`tmux team gone ${Date.now() - killedAt} ms after the lead's SIGKILL`);
      expect(survivors).toEqual([]);
      expect(() => tmuxOn(socketName, ['list-sessions'])).toThrow();
    } finally {
      lead.kill('SIGKILL');
    }
  });
});
