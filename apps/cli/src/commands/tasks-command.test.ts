import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { makeTempDirectory } from '@muster/test-utils';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, copyReferenceState } from '../test-support/reference.js';
import { jsonOf, runMuster, snapshotTree } from '../test-support/run-cli.js';

beforeAll(assertBuilt);

interface TaskJson {
  id: string;
  subject: string;
  status: string;
  owner?: string;
  blockedBy: string[];
  blocks: string[];
}

describe('muster tasks', () => {
  it('adds, lists, shows, claims, blocks and completes tasks', async () => {
    const root = await makeTempDirectory('muster-cli-tasks-');
    const muster = (...args: string[]) => runMuster([...args, '--root', root]);
    expect((await muster('team', 'create', 'work')).code).toBe(0);
    const first = await muster(
      'tasks',
      'add',
      'Write the parser',
      '--active-form',
      'Writing the parser',
    );
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('Created task #1: Write the parser');
    const second = jsonOf<{ task: TaskJson }>(
      await muster('tasks', 'add', 'Test the parser', '--blocked-by', '1', '--json'),
    );
    expect(second.task).toMatchObject({ id: '2', blockedBy: ['1'], status: 'pending' });
    expect((await muster('tasks', 'add', 'Document it')).code).toBe(0);
    expect((await muster('tasks', 'block', '3', '--by', '2')).stdout).toContain(
      'Updated task #3: blockedBy.',
    );

    const list = await muster('tasks', 'list');
    expect(list.stdout).toContain('#2 Test the parser [pending] blocked by #1');
    const listed = jsonOf<{
      tasks: { task: TaskJson; openBlockers: string[]; available: boolean }[];
    }>(await muster('tasks', 'list', '--json'));
    expect(listed.tasks.map((item) => [item.task.id, item.available, item.openBlockers])).toEqual([
      ['1', true, []],
      ['2', false, ['1']],
      ['3', false, ['2']],
    ]);

    expect((await muster('team', 'show', '--json')).code).toBe(0);
    const configPath = path.join(root, 'teams', 'work', 'config.json');
    const config = JSON.parse(await readFile(configPath, 'utf8')) as { members: unknown[] };
    expect(config.members).toHaveLength(1);

    // --from works as in the other task commands.
    const claim = await muster('tasks', 'claim', '1', '--from', 'team-lead');
    expect(claim.code).toBe(0);
    expect(claim.stdout).toContain(
      'team-lead claimed task #1: Write the parser (now in progress).',
    );
    const inbox = JSON.parse(
      await readFile(path.join(root, 'teams', 'work', 'inboxes', 'team-lead.json'), 'utf8'),
    ) as { text: string }[];
    expect(JSON.parse(inbox[0]!.text)).toMatchObject({
      type: 'task_assignment',
      taskId: '1',
      assignedBy: 'team-lead',
    });

    const shown = jsonOf<{ task: TaskJson; openBlockers: string[] }>(
      await muster('tasks', 'show', '2', '--json'),
    );
    expect(shown.openBlockers).toEqual(['1']);
    const done = await muster('tasks', 'done', '1');
    expect(done.stdout).toContain('Updated task #1: status.');
    const afterDone = jsonOf<{ openBlockers: string[] }>(
      await muster('tasks', 'show', '#2', '--json'),
    );
    expect(afterDone.openBlockers).toEqual([]);
    const text = await muster('tasks', 'show', '2');
    expect(text.stdout).toContain('blocked by  #1');

    const update = jsonOf<{ updatedFields: string[]; task: TaskJson }>(
      await muster(
        'tasks',
        'update',
        '2',
        '--subject',
        'Test the parser well',
        '--status',
        'in_progress',
        '--json',
      ),
    );
    expect(update.updatedFields).toEqual(expect.arrayContaining(['subject', 'status']));
    expect(update.task.subject).toBe('Test the parser well');
    const deleted = await muster('tasks', 'update', '3', '--status', 'deleted');
    expect(deleted.stdout).toContain('Deleted task #3.');
  });

  it('refuses a claim on a blocked task, a missing task or blocker, a bad id or an empty update, changing nothing', async () => {
    const root = await copyReferenceState('06-all-teammates-spawned');
    const muster = (...args: string[]) => runMuster([...args, '--root', root]);
    const before = await snapshotTree(root);
    const blocked = await muster('tasks', 'claim', '2', '--agent', 'beta');
    expect(blocked.code).toBe(1);
    expect(blocked.stderr).toContain(
      'beta cannot claim task #2 in team conf-team: it waits for #1 to be completed first. Nothing was changed.',
    );
    const stranger = await muster('tasks', 'claim', '3', '--agent', 'zeta');
    expect(stranger.code).toBe(1);
    expect(stranger.stderr).toContain('--agent "zeta" is not a member');
    const missing = await muster('tasks', 'show', '42');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('42');
    const missingBlocker = await muster('tasks', 'add', 'Ship it', '--blocked-by', '42');
    expect(missingBlocker.code).toBe(1);
    expect(missingBlocker.stderr).toContain('42');
    const badId = await muster('tasks', 'done', 'abc');
    expect(badId.code).toBe(2); // a wrong command line (README: exit code 2)
    expect(badId.stderr).toContain('The task id "abc" is not valid');
    const empty = await muster('tasks', 'update', '3');
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('Say what to change on task #3');
    const noAgent = await muster('tasks', 'claim', '3');
    expect(noAgent.code).toBe(2);
    expect(noAgent.stderr).toContain('Say who takes the task');
    const twoAgents = await muster('tasks', 'claim', '3', '--agent', 'beta', '--from', 'gamma');
    expect(twoAgents.code).toBe(2);
    expect(twoAgents.stderr).toContain('name different agents');
    expect(await snapshotTree(root)).toEqual(before);
  });

  it('refuses to complete or start a blocked task, as claim does, unless --force; nothing changes', async () => {
    const root = await makeTempDirectory('muster-cli-tasks-');
    const muster = (...args: string[]) => runMuster([...args, '--root', root]);
    expect((await muster('team', 'create', 'work')).code).toBe(0);
    expect((await muster('tasks', 'add', 'Write the parser')).code).toBe(0);
    expect((await muster('tasks', 'add', 'Test the parser', '--blocked-by', '1')).code).toBe(0);
    const before = await snapshotTree(root);
    // Unowned and blocked: claim refuses it, and so does done now.
    const claim = await muster('tasks', 'claim', '2', '--agent', 'team-lead');
    expect(claim.code).toBe(1);
    const done = await muster('tasks', 'done', '2');
    expect(done.code).toBe(1);
    expect(done.stderr).toContain('Task #2 in team work waits for #1, not completed yet');
    expect(done.stderr).toContain('muster tasks unblock 2 --by 1');
    expect(done.stderr).toContain('--force');
    const start = await muster('tasks', 'update', '2', '--status', 'in_progress');
    expect(start.code).toBe(1);
    expect(start.stderr).toContain('cannot start');
    const json = await muster('tasks', 'update', '2', '--status', 'completed', '--json');
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stderr)).toMatchObject({
      error: { code: 'REFUSED', details: { reason: 'blocked', openBlockers: ['1'] } },
    });
    expect(await snapshotTree(root)).toEqual(before);

    const forced = await muster('tasks', 'done', '2', '--force');
    expect(forced.code).toBe(0);
    expect(
      jsonOf<{ task: TaskJson }>(await muster('tasks', 'show', '2', '--json')).task.status,
    ).toBe('completed');
    // Once its blocker is completed, a task completes without --force.
    expect((await muster('tasks', 'add', 'Ship it', '--blocked-by', '1')).code).toBe(0);
    expect((await muster('tasks', 'done', '1')).code).toBe(0);
    expect((await muster('tasks', 'done', '3')).code).toBe(0);
  });

  it('removes dependencies from both tasks: tasks unblock and update --remove-blocked-by / --remove-blocks', async () => {
    const root = await makeTempDirectory('muster-cli-tasks-');
    const muster = (...args: string[]) => runMuster([...args, '--root', root]);
    const task = async (id: string) =>
      jsonOf<{ task: TaskJson }>(await muster('tasks', 'show', id, '--json')).task;
    expect((await muster('team', 'create', 'work')).code).toBe(0);
    for (const subject of ['One', 'Two', 'Three']) {
      expect((await muster('tasks', 'add', subject)).code).toBe(0);
    }
    expect((await muster('tasks', 'add', 'Four', '--blocked-by', '1', '2', '3')).code).toBe(0);

    const unblock = await muster('tasks', 'unblock', '4', '--by', '1');
    expect(unblock.code).toBe(0);
    expect(unblock.stdout).toContain('Updated task #4: blockedBy.');
    expect((await task('4')).blockedBy).toEqual(['2', '3']);
    expect((await task('1')).blocks).toEqual([]);

    const update = await muster('tasks', 'update', '4', '--remove-blocked-by', '#2', '--json');
    expect(update.code).toBe(0);
    expect(jsonOf<{ removedDependencies: unknown[] }>(update).removedDependencies).toEqual([
      { blockerId: '2', blockedId: '4' },
    ]);
    const fromBlocker = await muster('tasks', 'update', '3', '--remove-blocks', '4');
    expect(fromBlocker.code).toBe(0);
    expect(fromBlocker.stdout).toContain('Updated task #3: blocks.');
    expect((await task('4')).blockedBy).toEqual([]);
    expect((await task('3')).blocks).toEqual([]);
    expect((await task('2')).blocks).toEqual([]);

    // Removing what is not there changes nothing and says so; a missing task is an error.
    const again = await muster('tasks', 'unblock', '4', '--by', '1');
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('Task #4 did not wait for #1; nothing to remove there.');
    const missing = await muster('tasks', 'unblock', '42', '--by', '1');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('Task #42 does not exist');

    // The cycle error's advice can now be followed.
    expect((await muster('tasks', 'block', '2', '--by', '1')).code).toBe(0);
    const cycle = await muster('tasks', 'block', '1', '--by', '2');
    expect(cycle.code).toBe(1);
    expect(cycle.stderr).toContain('Remove one of the existing dependencies first');
    expect((await muster('tasks', 'unblock', '2', '--by', '1')).code).toBe(0);
    expect((await muster('tasks', 'block', '1', '--by', '2')).code).toBe(0);
  });
});
