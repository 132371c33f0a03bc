import { hostname } from 'node:os';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { MusterError } from '@muster/protocol';
import { makeTempDirectory, startNodeProcess } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import {
  addMember,
  createTeam,
  findMemberRuntime,
  heartbeat,
  isMemberProcessAlive,
  readMemberRuntime,
  readTeam,
  recordMemberRuntime,
  removeMember,
  type AddMemberOptions,
} from './index.js';
import { fixturePath, snapshotTree } from './test-helpers.js';

const teammate: AddMemberOptions = {
  name: 'worker',
  agentType: 'general-purpose',
  model: 'claude-opus-4-6',
  prompt: 'Work.',
  planModeRequired: false,
  cwd: '/work/repo',
  backendType: 'pty',
  tmuxPaneId: '',
};

describe('member runtime sidecar', () => {
  it('records pid, process identity and backend in .muster/members.json, never in config.json', async () => {
    const root = await makeTempDirectory();
    const { teamName, configPath } = await createTeam({ root, name: 'side', cwd: '/repo' });
    await addMember(root, teamName, teammate);
    const configBefore = await readFile(configPath, 'utf8');
    expect(await readMemberRuntime(root, teamName)).toEqual({});
    const child = startNodeProcess(fixturePath('idle.mjs'));
    try {
      await child.waitForLine((line) => line === 'ready');
      const record = await recordMemberRuntime(root, teamName, 'worker@side', {
        pid: child.child.pid!,
        backend: 'pty',
        paneId: '%7',
        details: { socket: '/tmp/x' },
        now: 1000,
      });
      expect(record).toMatchObject({
        agentId: 'worker@side',
        pid: child.child.pid,
        backend: 'pty',
        paneId: '%7',
        recordedAt: 1000,
        heartbeatAt: 1000,
      });
      expect(record.processStartTime).toMatch(/^[0-9]+$/);
      await heartbeat(root, teamName, 'worker', { now: 2000 });
      const runtimes = await readMemberRuntime(root, teamName);
      expect(runtimes.worker!.heartbeatAt).toBe(2000);
      const sidecarText = await readFile(
        path.join(root, 'teams/side/.muster/members.json'),
        'utf8',
      );
      expect(sidecarText.startsWith('{\n  "version": 1,\n  "members": {')).toBe(true);
      expect(sidecarText.endsWith('}')).toBe(true);
      expect(await readFile(configPath, 'utf8')).toBe(configBefore);
      const member = (await readTeam(root, teamName)).members[1]!;
      expect(findMemberRuntime(runtimes, member)).toEqual(runtimes.worker);
      expect(isMemberProcessAlive(runtimes.worker!)).toBe(true);
      child.child.kill('SIGKILL');
      await child.exited;
      expect(isMemberProcessAlive(runtimes.worker!)).toBe(false);
    } finally {
      child.child.kill('SIGKILL');
    }
  });

  it('judges a recycled pid (same pid, other start time) gone, and a record without a pid alive', () => {
    const base = { agentId: 'a@t', memberJoinedAt: 1, recordedAt: 1 };
    const self = { ...base, pid: process.pid, hostname: hostname() };
    expect(isMemberProcessAlive({ ...self, processStartTime: '1' })).toBe(false);
    expect(isMemberProcessAlive(self)).toBe(true);
    expect(isMemberProcessAlive(base)).toBe(true);
    expect(isMemberProcessAlive({ ...self, hostname: 'another-machine', pid: 999_999_999 })).toBe(
      true,
    );
  });

  it('does not apply a record to a later member who reuses the name', async () => {
    const root = await makeTempDirectory();
    const { teamName } = await createTeam({ root, name: 'reuse', cwd: '/repo' });
    await addMember(root, teamName, { ...teammate, now: 1 });
    await recordMemberRuntime(root, teamName, 'worker', { backend: 'in-process' });
    await removeMember(root, teamName, 'worker');
    await addMember(root, teamName, { ...teammate, now: 2 });
    const member = (await readTeam(root, teamName)).members[1]!;
    expect(findMemberRuntime(await readMemberRuntime(root, teamName), member)).toBeUndefined();
  });

  it('refuses unknown members, dead pids and heartbeats without a record, changing nothing', async () => {
    const root = await makeTempDirectory();
    const { teamName } = await createTeam({ root, name: 'side', cwd: '/repo' });
    await addMember(root, teamName, teammate);
    const before = await snapshotTree(root);
    const unknown = await recordMemberRuntime(root, teamName, 'wroker', {}).catch((error) => error);
    expect(MusterError.hasCode(unknown, 'MEMBER_NOT_FOUND')).toBe(true);
    expect(unknown.details.suggestion).toBe('worker');
    const dead = await recordMemberRuntime(root, teamName, 'worker', { pid: 999_999_999 }).catch(
      (error) => error,
    );
    expect(MusterError.hasCode(dead, 'INVALID_INPUT')).toBe(true);
    const beat = await heartbeat(root, teamName, 'worker').catch((error) => error);
    expect(MusterError.hasCode(beat, 'MEMBER_NOT_FOUND')).toBe(true);
    const noTeam = await heartbeat(root, 'nope', 'worker').catch((error) => error);
    expect(MusterError.hasCode(noTeam, 'TEAM_NOT_FOUND')).toBe(true);
    expect(await snapshotTree(root)).toEqual(before);
  });

  it('quarantines a sidecar that does not parse and reports CORRUPT_FILE', async () => {
    const root = await makeTempDirectory();
    const { teamName } = await createTeam({ root, name: 'side', cwd: '/repo' });
    await addMember(root, teamName, teammate);
    await recordMemberRuntime(root, teamName, 'worker', {});
    const sidecar = path.join(root, 'teams/side/.muster/members.json');
    await writeFile(sidecar, '{"version": 1, "members": {"worker": ');
    const error = await readMemberRuntime(root, teamName).catch((caught) => caught);
    expect(MusterError.hasCode(error, 'CORRUPT_FILE')).toBe(true);
    expect(await readFile(error.details.quarantinedTo, 'utf8')).toBe(
      '{"version": 1, "members": {"worker": ',
    );
  });
});
