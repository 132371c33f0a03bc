import { execFile, spawn } from 'node:child_process';
import { chmod, mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempDirectory, startNodeProcess } from '@muster/test-utils';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, builtCli, copyReferenceState } from '../test-support/reference.js';
import { jsonOf, runMuster, type CliRun } from '../test-support/run-cli.js';

beforeAll(assertBuilt);

const holdLock = fileURLToPath(new URL('../test-fixtures/hold-lock.mjs', import.meta.url));

interface DoctorJson {
  ok: boolean;
  findings: { severity: string; code: string; file: string; message: string }[];
}

const findingsOf = (run: CliRun, root: string) =>
  jsonOf<DoctorJson>(run).findings.map(
    (finding) => `${finding.severity} ${finding.code} ${path.relative(root, finding.file)}`,
  );

/** The built CLI run as `nobody`, so that file permissions apply even when tests run as root. */
function runMusterAsNobody(args: readonly string[]): Promise<CliRun> {
  const asRoot = process.getuid?.() === 0;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [builtCli, ...args],
      {
        encoding: 'utf8',
        env: { ...process.env, HOME: '/tmp', MUSTER_HOME: '' },
        ...(asRoot ? { uid: 65534, gid: 65534 } : {}),
        timeout: 30_000,
      },
      (error, stdout, stderr) =>
        resolve({
          code: error ? (typeof error.code === 'number' ? error.code : 1) : 0,
          stdout,
          stderr,
        }),
    );
  });
}

describe('muster doctor judges what it cannot read, and what Claude Code leaves, correctly', () => {
  it('reports a root it may not read as a problem (exit 1), never as an unexpected error', async () => {
    const root = await makeTempDirectory('muster-cli-doctor-');
    await chmod(root, 0o755);
    await mkdir(path.join(root, 'teams'));
    await chmod(path.join(root, 'teams'), 0o000);
    try {
      const run = await runMusterAsNobody(['doctor', '--root', root]);
      expect(run.stderr).not.toContain('unexpected error');
      expect(run.code).toBe(1);
      expect(run.stdout).toContain('UNREADABLE');
      expect(run.stdout).toContain('permission denied');
      expect(run.stdout).toContain('Check its permissions');
    } finally {
      await chmod(path.join(root, 'teams'), 0o755);
    }
  });

  it('reports a root that is a file, a dangling link or a link loop (exit 1)', async () => {
    const base = await makeTempDirectory('muster-cli-doctor-');
    const file = path.join(base, 'file');
    await writeFile(file, 'not a folder');
    const dangling = path.join(base, 'dangling');
    await symlink(path.join(base, 'nowhere'), dangling);
    const looping = path.join(base, 'looping');
    await mkdir(looping);
    await symlink(path.join(looping, 'teams'), path.join(looping, 'teams'));
    for (const root of [file, dangling, looping]) {
      const run = await runMuster(['doctor', '--root', root, '--json']);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(1);
      expect(findingsOf(run, base).join('\n')).toContain('problem UNREADABLE');
    }
  });

  it('warns, without failing, about the inbox of a member that shut down', async () => {
    const root = await copyReferenceState('11-all-shutdowns-approved');
    await writeFile(path.join(root, 'teams', 'conf-team', 'inboxes', 'zeta.json'), '[]');
    const run = await runMuster(['doctor', '--root', root, '--json']);
    expect(findingsOf(run, root)).toEqual([
      'warning INBOX_OF_NON_MEMBER teams/conf-team/inboxes/zeta.json',
    ]);
    expect(run.code).toBe(0);
  });

  it('warns about an inbox frozen empty or half-written, without failing', async () => {
    const root = await copyReferenceState('06-all-teammates-spawned');
    const inboxes = path.join(root, 'teams', 'conf-team', 'inboxes');
    await writeFile(path.join(inboxes, 'beta.json'), '');
    const half = await readFile(path.join(inboxes, 'alpha.json'), 'utf8');
    await writeFile(path.join(inboxes, 'gamma.json'), half.slice(0, half.length / 2));
    const frozen = await runMuster(['doctor', '--root', root, '--json']);
    expect(findingsOf(frozen, root).sort()).toEqual([
      'warning DOES_NOT_PARSE teams/conf-team/inboxes/beta.json',
      'warning DOES_NOT_PARSE teams/conf-team/inboxes/gamma.json',
    ]);
    expect(frozen.code).toBe(0);
  });

  it('says nothing about an inbox while a running writer rewrites it in place', async () => {
    const root = await copyReferenceState('06-all-teammates-spawned');
    const inboxes = path.join(root, 'teams', 'conf-team', 'inboxes');
    // A real process rewriting alpha's inbox in place, as Claude Code does: truncate and
    // write half (300 ms), then the rest (200 ms), over and over.
    const alpha = path.join(inboxes, 'alpha.json');
    const writer = spawn(
      process.execPath,
      [
        '-e',
        `const fs = require('node:fs');
         const [file, text] = [process.argv[1], fs.readFileSync(process.argv[1], 'utf8')];
         const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
         console.log('writing');
         for (;;) {
           const descriptor = fs.openSync(file, 'w');
           fs.writeSync(descriptor, text.slice(0, text.length / 2));
           sleep(300);
           fs.writeSync(descriptor, text.slice(text.length / 2));
           fs.closeSync(descriptor);
           sleep(200);
         }`,
        alpha,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const exited = new Promise((resolve) => writer.on('exit', resolve));
    try {
      await new Promise((resolve) => writer.stdout.once('data', resolve));
      for (let run = 0; run < 4; run += 1) {
        const report = await runMuster(['doctor', '--root', root, '--json']);
        expect(findingsOf(report, root)).toEqual([]);
        expect(report.code).toBe(0);
      }
    } finally {
      writer.kill('SIGKILL');
      await exited;
    }
  });

  it('judges a lock by the lock itself: a live lock beside an old owner record is not abandoned', async () => {
    const root = await copyReferenceState('06-all-teammates-spawned');
    const inbox = path.join(root, 'teams', 'conf-team', 'inboxes', 'alpha.json');
    // muster held the lock and died: its owner record stays beside the lock.
    const holder = startNodeProcess(holdLock, [inbox]);
    await holder.waitForLine((line) => line === 'locked');
    holder.child.kill('SIGKILL');
    await holder.exited;
    expect(findingsOf(await runMuster(['doctor', '--root', root, '--json']), root)).toEqual([
      'problem STALE_LOCK teams/conf-team/inboxes/alpha.json.lock',
    ]);
    // Claude Code (proper-lockfile) then removed that stale lock and took a fresh one,
    // writing no owner record: the old record now sits beside a live lock.
    await rm(`${inbox}.lock`, { recursive: true });
    await mkdir(`${inbox}.lock`);
    const run = await runMuster(['doctor', '--root', root, '--json']);
    expect(findingsOf(run, root)).toEqual([]);
    expect(run.code).toBe(0);
  });

  it('fails on duplicate member names and on an inbox that is a folder', async () => {
    const root = await copyReferenceState('06-all-teammates-spawned');
    const team = path.join(root, 'teams', 'conf-team');
    const config = JSON.parse(await readFile(path.join(team, 'config.json'), 'utf8')) as {
      members: Record<string, unknown>[];
    };
    config.members.push({ ...config.members[1]!, agentId: 'alpha-2@conf-team' });
    await writeFile(path.join(team, 'config.json'), JSON.stringify(config, null, 2));
    await rm(path.join(team, 'inboxes', 'beta.json'), { force: true });
    await mkdir(path.join(team, 'inboxes', 'beta.json'));
    const run = await runMuster(['doctor', '--root', root, '--json']);
    expect(findingsOf(run, root).sort()).toEqual([
      'problem DUPLICATE_MEMBER_NAME teams/conf-team/config.json',
      'problem NOT_A_FILE teams/conf-team/inboxes/beta.json',
    ]);
    expect(run.code).toBe(1);
    const text = await runMuster(['doctor', '--root', root]);
    expect(text.stdout).toContain('2 members named "alpha"');
    expect(text.code).toBe(1);
  });
});
