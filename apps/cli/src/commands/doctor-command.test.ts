import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { recordMemberRuntime } from '@muster/teams';
import { startNodeProcess } from '@muster/test-utils';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, copyReferenceState } from '../test-support/reference.js';
import { jsonOf, runMuster, snapshotTree } from '../test-support/run-cli.js';

beforeAll(assertBuilt);

const holdLock = fileURLToPath(new URL('../test-fixtures/hold-lock.mjs', import.meta.url));

interface DoctorJson {
  ok: boolean;
  findings: { severity: string; code: string; file: string; message: string }[];
  repairs: { code: string; repaired: boolean; message: string }[];
}

/** Leaves a lock whose owner record names a process that no longer runs. */
async function leaveDeadOwnerLock(file: string): Promise<void> {
  const holder = startNodeProcess(holdLock, [file]);
  await holder.waitForLine((line) => line === 'locked');
  holder.child.kill('SIGKILL');
  await holder.exited;
}

/** A process that runs until the test kills it; resolves with its pid once started. */
function startSleeper() {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  return { child, exited };
}

describe('muster doctor', () => {
  for (const state of ['06-all-teammates-spawned', '11-all-shutdowns-approved'] as const) {
    it(`reports zero problems on the Claude Code reference ${state}`, async () => {
      const root = await copyReferenceState(state);
      const before = await snapshotTree(root);
      const run = await runMuster(['doctor', '--root', root]);
      expect(run.stderr).toBe('');
      expect(run.stdout).toContain('[ok] No problems.');
      expect(run.code).toBe(0);
      const json = jsonOf<DoctorJson>(await runMuster(['doctor', '--root', root, '--json']));
      expect(json.ok).toBe(true);
      expect(json.findings).toEqual([]);
      expect(await snapshotTree(root)).toEqual(before);
    });
  }

  it('names each problem in a copy broken on purpose, and --fix repairs only the safe ones', async () => {
    const root = await copyReferenceState('11-all-shutdowns-approved');
    const tasks = path.join(root, 'tasks', 'conf-team');
    const inboxes = path.join(root, 'teams', 'conf-team', 'inboxes');
    // A file that does not parse, and one that parses but is not a task.
    await writeFile(path.join(tasks, '6.json'), '{"id": "6", "subject": ');
    const seven = JSON.parse(await readFile(path.join(tasks, '7.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    await writeFile(
      path.join(tasks, '7.json'),
      JSON.stringify({ ...seven, status: 'finished' }, null, 2),
    );
    // A quarantined copy, and the inbox of someone who is not a member.
    await writeFile(path.join(inboxes, 'beta.json.corrupt-2026-01-01T00-00-00-000Z'), '[{"from"');
    await writeFile(path.join(inboxes, 'zeta.json'), '[]');
    // A lock left by a dead process (owner record), and a Claude Code lock nobody refreshed.
    await leaveDeadOwnerLock(path.join(inboxes, 'alpha.json'));
    await mkdir(path.join(tasks, '.lock.lock'));
    const longAgo = new Date(Date.now() - 3_600_000);
    await utimes(path.join(tasks, '.lock.lock'), longAgo, longAgo);
    // Tasks owned by someone who left, a missing dependency and a cycle.
    const task = async (id: string, change: Record<string, unknown>) => {
      const file = path.join(tasks, `${id}.json`);
      const value = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
      await writeFile(file, JSON.stringify({ ...value, ...change }, null, 2));
    };
    await task('3', { owner: 'zeta', blockedBy: ['2', '9', '5'], blocks: ['5'] });
    await task('5', { blockedBy: ['3'], blocks: ['3'] });
    await writeFile(path.join(tasks, '.highwatermark'), 'many');
    // A queued message the mailbox could not deliver.
    const rejected = path.join(
      root,
      'teams',
      'conf-team',
      '.muster',
      'mailbox',
      'alpha',
      'rejected',
    );
    await mkdir(rejected, { recursive: true });
    await writeFile(path.join(rejected, '1795350961000-abc.json'), '{"from"');

    const run = await runMuster(['doctor', '--root', root]);
    expect(run.code).toBe(1);
    const report = jsonOf<DoctorJson>(await runMuster(['doctor', '--root', root, '--json']));
    expect(report.ok).toBe(false);
    const found = report.findings.map(
      (finding) => `${finding.code} ${path.relative(root, finding.file)}`,
    );
    expect(found).toEqual(
      expect.arrayContaining([
        'DOES_NOT_PARSE tasks/conf-team/6.json',
        'DOES_NOT_VALIDATE tasks/conf-team/7.json',
        'QUARANTINED_FILE teams/conf-team/inboxes/beta.json.corrupt-2026-01-01T00-00-00-000Z',
        'INBOX_OF_NON_MEMBER teams/conf-team/inboxes/zeta.json',
        'STALE_LOCK teams/conf-team/inboxes/alpha.json.lock',
        'STALE_LOCK tasks/conf-team/.lock.lock',
        'TASK_OWNER_GONE tasks/conf-team/3.json',
        'MISSING_DEPENDENCY tasks/conf-team/3.json',
        'CYCLIC_DEPENDENCY tasks/conf-team/3.json',
        'BAD_HIGH_WATERMARK tasks/conf-team/.highwatermark',
        'UNDELIVERED_MESSAGE teams/conf-team/.muster/mailbox/alpha/rejected/1795350961000-abc.json',
      ]),
    );
    const message = (code: string) =>
      report.findings.find((finding) => finding.code === code)?.message ?? '';
    expect(message('DOES_NOT_VALIDATE')).toContain('status');
    expect(message('CYCLIC_DEPENDENCY')).toContain('#3 waits for #5 waits for #3');
    expect(message('MISSING_DEPENDENCY')).toContain('#9');
    expect(
      report.findings.find((finding) => finding.file.endsWith('alpha.json.lock'))?.message,
    ).toMatch(/its owner, process \d+, is no longer running/);
    // The text report names each file too.
    for (const line of found) expect(run.stdout).toContain(line.split(' ')[1]);

    const fixed = jsonOf<DoctorJson>(
      await runMuster(['doctor', '--root', root, '--fix', '--json']),
    );
    expect(fixed.repairs.map((repair) => [repair.code, repair.repaired])).toEqual([
      ['STALE_LOCK', true],
      ['STALE_LOCK', true],
      ['TASK_OWNER_GONE', true],
    ]);
    expect(existsSync(path.join(inboxes, 'alpha.json.lock'))).toBe(false);
    expect(existsSync(path.join(tasks, '.lock.lock'))).toBe(false);
    const three = JSON.parse(await readFile(path.join(tasks, '3.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(three.owner).toBeUndefined();
    const remaining = fixed.findings.map((finding) => finding.code);
    expect(remaining).not.toContain('STALE_LOCK');
    expect(remaining).not.toContain('TASK_OWNER_GONE');
    expect(remaining).toContain('DOES_NOT_PARSE');
    const text = await runMuster(['doctor', '--root', root, '--fix']);
    expect(text.stdout).not.toContain('Repairs:');
    expect(text.code).toBe(1);
  });

  it("reports a member whose recorded process is gone and unassigns that member's tasks with --fix", async () => {
    const root = await copyReferenceState('06-all-teammates-spawned');
    const sleeper = startSleeper();
    await recordMemberRuntime(root, 'conf-team', 'alpha', {
      pid: sleeper.child.pid!,
      backend: 'in-process',
    });
    expect((await runMuster(['doctor', '--root', root])).code).toBe(0);
    sleeper.child.kill('SIGKILL');
    await sleeper.exited;
    const report = jsonOf<DoctorJson>(await runMuster(['doctor', '--root', root, '--json']));
    expect(report.findings.map((finding) => finding.code)).toEqual([
      'MEMBER_PROCESS_GONE',
      'TASK_OWNER_GONE',
    ]);
    expect(report.findings[0]?.message).toContain('"alpha"');
    const fixed = jsonOf<DoctorJson>(
      await runMuster(['doctor', '--root', root, '--json', '--fix']),
    );
    expect(fixed.repairs[0]?.message).toContain(
      'unassigned #1 (Implement greeting module) from alpha',
    );
    expect(fixed.findings.map((finding) => finding.code)).toEqual(['MEMBER_PROCESS_GONE']);
  });
});
