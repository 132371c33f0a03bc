// muster and Claude Code 2.1.330 exclude each other on config.json: both take
// `config.json.lock` (a bare mkdir lock directory) around their read-modify-write, with real
// child processes on the other side. And a reader that catches config.json half-rewritten in
// place (2.1.330 does not write it atomically) reads again instead of calling it corrupt.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { makeTempDirectory, startNodeProcess } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import { listTeams, readTeam, setMemberActive, updateTeamConfig } from './index.js';
import { copyReferenceState, fixturePath, referenceDirectory2_1_330 } from './test-helpers.js';

const team = 'session-7f85384e';

async function sessionTeam() {
  const root = await makeTempDirectory();
  await copyReferenceState('tmux-08-permission-answered', root, referenceDirectory2_1_330);
  return { root, configPath: path.join(root, 'teams', team, 'config.json') };
}

/** Blocks this thread (not just the event loop) until `file` exists; false after `limitMs`. */
function blockUntilExists(file: string, limitMs: number): boolean {
  const cell = new Int32Array(new SharedArrayBuffer(4));
  for (let waited = 0; waited < limitMs; waited += 5) {
    if (existsSync(file)) return true;
    Atomics.wait(cell, 0, 0, 5);
  }
  return existsSync(file);
}

describe('config.json.lock shared with Claude Code 2.1.330', () => {
  it('muster waits while another process holds config.json.lock, and changes the file only after', async () => {
    const { root, configPath } = await sessionTeam();
    const folder = await makeTempDirectory();
    const release = path.join(folder, 'release');
    const releasing = path.join(folder, 'releasing');
    const holder = startNodeProcess(fixturePath('hold-lock-directory.mjs'), [
      `${configPath}.lock`,
      release,
      releasing,
    ]);
    await holder.waitForLine((line) => line === 'held');
    let ranAfterRelease: boolean | undefined;
    let settled = false;
    const update = updateTeamConfig(root, team, (config) => {
      ranAfterRelease = existsSync(releasing);
      config.members[1]!.isActive = false;
      return config;
    }).finally(() => {
      settled = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(settled).toBe(false);
    await writeFile(release, '');
    const { written } = await update;
    expect(written).toBe(true);
    expect(ranAfterRelease).toBe(true);
    expect((await holder.exited).code).toBe(0);
    expect(JSON.parse(await readFile(configPath, 'utf8')).members[1].isActive).toBe(false);
    expect(existsSync(`${configPath}.lock`)).toBe(false);
  });

  it('a 2.1.330-style writer (mkdir, 10 retries, 5–100 ms) waits while muster holds it, and nothing is lost', async () => {
    const { root, configPath } = await sessionTeam();
    const folder = await makeTempDirectory();
    const seenHeld = path.join(folder, 'seen-held');
    let writer: ReturnType<typeof spawn> | undefined;
    let output = '';
    let sawWriterWaiting = false;
    let lockHeldDuringUpdate = false;
    await updateTeamConfig(root, team, (config) => {
      lockHeldDuringUpdate = existsSync(`${configPath}.lock`);
      if (writer === undefined) {
        writer = spawn(
          process.execPath,
          [fixturePath('claude-code-config-writer.mjs'), configPath, seenHeld, 'alpha', 'false'],
          { stdio: ['ignore', 'pipe', 'inherit'] },
        );
        writer.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
        // Hold the lock (this thread blocked) until the writer has found it taken.
        sawWriterWaiting = blockUntilExists(seenHeld, 20_000);
      }
      config.members[1]!.isActive = false;
      return config;
    });
    expect(lockHeldDuringUpdate).toBe(true);
    expect(sawWriterWaiting).toBe(true);
    const code = await new Promise<number | null>((resolve) => writer!.on('close', resolve));
    expect(code).toBe(0);
    const report = JSON.parse(output) as { acquired: boolean; failedAttempts: number };
    expect(report.acquired).toBe(true);
    expect(report.failedAttempts).toBeGreaterThanOrEqual(1);
    // The writer read after muster's write: both changes are in the file.
    const members = JSON.parse(await readFile(configPath, 'utf8')).members;
    expect(members[1]).toMatchObject({ name: 'gamma', isActive: false });
    expect(members[2]).toMatchObject({ name: 'alpha', isActive: false });
  });

  it('holds config.json.lock only for the read-modify-write', async () => {
    const { root, configPath } = await sessionTeam();
    await setMemberActive(root, team, 'gamma', false);
    expect(existsSync(`${configPath}.lock`)).toBe(false);
    expect(JSON.parse(readFileSync(configPath, 'utf8')).members[1].isActive).toBe(false);
  });
});

describe('config.json rewritten in place while muster reads it', () => {
  /** Plain reads of the file during the run that did not parse: proof the test saw torn files. */
  async function countTornReads(configPath: string, running: () => boolean): Promise<number> {
    let torn = 0;
    while (running()) {
      try {
        JSON.parse(await readFile(configPath, 'utf8'));
      } catch {
        torn += 1;
      }
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    return torn;
  }

  it('listTeams never reports a team as broken because it caught it half-written', async () => {
    const { root, configPath } = await sessionTeam();
    const writer = startNodeProcess(fixturePath('rewrite-config-in-place.mjs'), [
      configPath,
      '150',
      'lock',
    ]);
    await writer.waitForLine((line) => line === 'started');
    let running = true;
    void writer.exited.then(() => (running = false));
    const torn = countTornReads(configPath, () => running);
    let listings = 0;
    while (running) {
      const listing = await listTeams(root);
      expect(listing.problems).toEqual([]);
      expect(listing.teams.map((entry) => entry.name)).toEqual([team]);
      listings += 1;
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect((await writer.exited).code).toBe(0);
    expect(listings).toBeGreaterThan(0);
    expect(await torn).toBeGreaterThan(0);
  });

  it('readTeam never calls a config corrupt (nor moves it aside) while 2.1.330 rewrites it under its lock', async () => {
    const { root, configPath } = await sessionTeam();
    const writer = startNodeProcess(fixturePath('rewrite-config-in-place.mjs'), [
      configPath,
      '150',
      'lock',
    ]);
    await writer.waitForLine((line) => line === 'started');
    let running = true;
    void writer.exited.then(() => (running = false));
    const torn = countTornReads(configPath, () => running);
    while (running) {
      const config = await readTeam(root, team);
      expect(config.name).toBe(team);
      // readTeam may finish without a macrotask: let the child's exit event through.
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect((await writer.exited).code).toBe(0);
    expect(await torn).toBeGreaterThan(0);
    const folder = await import('node:fs/promises').then((fs) =>
      fs.readdir(path.dirname(configPath)),
    );
    expect(folder.filter((name) => name.includes('corrupt'))).toEqual([]);
  });
});
