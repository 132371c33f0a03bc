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
    expect(badId.code).toBe(1);
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
});
