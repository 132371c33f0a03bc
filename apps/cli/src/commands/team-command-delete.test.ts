import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { makeTempDirectory } from '@muster/test-utils';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, builtCli } from '../test-support/reference.js';
import { runMuster, snapshotTree } from '../test-support/run-cli.js';

beforeAll(assertBuilt);

/** True when util-linux `script` can give the CLI a real terminal (a PTY). */
const hasScript = (() => {
  try {
    execFileSync('script', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/**
 * Runs `muster …` on a PTY (through `script`) and types `answer` once the prompt is on the
 * screen, as a person would (typed earlier, it could be lost while the terminal is set up).
 */
function runOnTerminal(args: string[], answer: string): Promise<{ code: number; output: string }> {
  const command = [process.execPath, builtCli, ...args]
    .map((word) => `'${word.replace(/'/g, `'\\''`)}'`)
    .join(' ');
  return new Promise((resolve) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let output = '';
    let answered = false;
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      if (!answered && output.includes('[y/N]')) {
        answered = true;
        child.stdin.end(answer);
      }
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (!answered) child.stdin.end();
      resolve({ code: code ?? 1, output });
    });
  });
}

async function teamWithWork() {
  const root = await makeTempDirectory('muster-cli-delete-');
  const muster = (...args: string[]) => runMuster([...args, '--root', root]);
  expect((await muster('team', 'create', 'work')).code).toBe(0);
  expect((await muster('team', 'create', 'other')).code).toBe(0);
  return { root, muster };
}

describe('muster team delete', () => {
  it('refuses while tasks are unfinished or messages unread, listing them; --force deletes', async () => {
    const { root, muster } = await teamWithWork();
    const inTeam = (...args: string[]) => muster(...args, '--team', 'work');
    expect((await inTeam('tasks', 'add', 'Write the parser')).code).toBe(0);
    expect((await inTeam('tasks', 'add', 'Test the parser')).code).toBe(0);
    expect((await inTeam('tasks', 'done', '2')).code).toBe(0);
    expect((await inTeam('send', 'team-lead', 'Please review #1')).code).toBe(0);
    const before = await snapshotTree(root);

    const refused = await muster('team', 'delete', 'work');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('Team "work" was not deleted');
    expect(refused.stderr).toContain('1 unfinished task (#1 Write the parser)');
    expect(refused.stderr).toContain('1 unread message (team-lead: 1)');
    expect(refused.stderr).toContain(`muster team delete work --force --root ${root}`);
    const json = await muster('team', 'delete', 'work', '--json');
    expect(JSON.parse(json.stderr)).toMatchObject({
      error: {
        code: 'REFUSED',
        details: {
          unfinishedTasks: ['#1 Write the parser'],
          unreadMessages: [{ inbox: 'team-lead', count: 1 }],
        },
      },
    });
    expect(await snapshotTree(root)).toEqual(before);

    const forced = await muster('team', 'delete', 'work', '--force');
    expect(forced.code).toBe(0);
    expect(existsSync(path.join(root, 'teams', 'work'))).toBe(false);
    expect(existsSync(path.join(root, 'tasks', 'work'))).toBe(false);
    expect(existsSync(path.join(root, 'teams', 'other', 'config.json'))).toBe(true);
  });

  it('deletes without --force once everything is finished and read', async () => {
    const { root, muster } = await teamWithWork();
    const inTeam = (...args: string[]) => muster(...args, '--team', 'work');
    expect((await inTeam('tasks', 'add', 'Write the parser')).code).toBe(0);
    expect((await inTeam('send', 'team-lead', 'Please review #1')).code).toBe(0);
    expect((await inTeam('tasks', 'done', '1')).code).toBe(0);
    expect((await inTeam('inbox', 'team-lead', '--mark-read')).code).toBe(0);
    const run = await muster('team', 'delete', 'work');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Deleted team work');
    expect(existsSync(path.join(root, 'teams', 'work'))).toBe(false);
  });

  it.skipIf(!hasScript)(
    'asks on a terminal: only a yes deletes',
    async () => {
      const { root, muster } = await teamWithWork();
      expect((await muster('tasks', 'add', 'Write the parser', '--team', 'work')).code).toBe(0);
      const no = await runOnTerminal(['team', 'delete', 'work', '--root', root], 'n\n');
      expect(no.output).toContain(
        'Team "work" has 1 unfinished task (#1 Write the parser). Delete it with all of that? [y/N]',
      );
      expect(no.code).toBe(1);
      expect(existsSync(path.join(root, 'teams', 'work', 'config.json'))).toBe(true);
      const yes = await runOnTerminal(['team', 'delete', 'work', '--root', root], 'y\n');
      expect(yes.code).toBe(0);
      expect(yes.output).toContain('Deleted team');
      expect(existsSync(path.join(root, 'teams', 'work'))).toBe(false);
    },
    120_000,
  );

  it('a corrupt config is left in place, never blamed on another team, and --force deletes it', async () => {
    const { root, muster } = await teamWithWork();
    const config = path.join(root, 'teams', 'work', 'config.json');
    await writeFile(config, '{"name": "work", "members": [');
    const before = await snapshotTree(root);
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const refused = await muster('team', 'delete', 'work');
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('Team "work" cannot be read');
      expect(refused.stderr).toContain('muster team delete work --force');
      expect(refused.stderr).not.toContain('other');
      expect(refused.stderr).not.toContain('Did you mean');
      // Not quarantined: the same command gives the same answer, and nothing moved.
      expect(await snapshotTree(root)).toEqual(before);
    }
    const forced = await muster('team', 'delete', 'work', '--force');
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain('whose config was corrupt');
    expect(await readdir(path.join(root, 'teams'))).toEqual(['other']);
    expect(existsSync(path.join(root, 'tasks', 'work'))).toBe(false);
  });

  it('a team whose config was already moved aside (*.corrupt-*) can still be deleted with --force', async () => {
    const { root, muster } = await teamWithWork();
    const config = path.join(root, 'teams', 'work', 'config.json');
    await rename(config, `${config}.corrupt-1700000000000`);
    const refused = await muster('team', 'delete', 'work');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('Team "work" cannot be read');
    expect(refused.stderr).not.toContain('other');
    const forced = await muster('team', 'delete', 'work', '--force');
    expect(forced.code).toBe(0);
    expect(await readdir(path.join(root, 'teams'))).toEqual(['other']);
    expect(await readFile(path.join(root, 'teams', 'other', 'config.json'), 'utf8')).toContain(
      '"name": "other"',
    );
  });
});
