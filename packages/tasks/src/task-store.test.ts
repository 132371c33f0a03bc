import { readFile, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { TaskAssignmentSchema } from '@muster/protocol';
import { makeTempDirectory } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import {
  buildTaskAssignment,
  createTaskStore,
  formatTaskCreatedText,
  formatTaskDetailsText,
  formatTaskListText,
  formatTaskUpdatedText,
  TaskError,
  type TaskStoreOptions,
} from './index.js';

async function openStore(options: Partial<TaskStoreOptions> = {}) {
  const root = await makeTempDirectory('muster-tasks-');
  const store = createTaskStore({ root, team: 'crew', ...options });
  const taskText = (id: string) => readFile(path.join(root, 'tasks', 'crew', `${id}.json`), 'utf8');
  return { root, store, taskText };
}

describe('create', () => {
  it('writes Claude Code key order, two-space JSON without a trailing newline, ids from 1', async () => {
    const { store, taskText } = await openStore();
    const first = await store.create({ subject: 'Write greet', description: 'greet(name)' });
    const second = await store.create({
      subject: 'Test greet',
      description: 'tests',
      activeForm: 'Testing greet',
      metadata: { priority: 'low' },
    });
    expect([first.id, second.id]).toEqual(['1', '2']);
    expect(await taskText('1')).toBe(
      '{\n  "id": "1",\n  "subject": "Write greet",\n  "description": "greet(name)",\n  "status": "pending",\n  "blocks": [],\n  "blockedBy": []\n}',
    );
    expect(Object.keys(JSON.parse(await taskText('2')))).toEqual([
      'id',
      'subject',
      'description',
      'activeForm',
      'status',
      'blocks',
      'blockedBy',
      'metadata',
    ]);
    expect(formatTaskCreatedText(second)).toBe('Task #2 created successfully: Test greet');
  });

  it('never reuses an id: next id is max(files, .highwatermark) + 1', async () => {
    const { root, store } = await openStore();
    await store.create({ subject: 'a', description: '' });
    await store.create({ subject: 'b', description: '' });
    await store.delete('2');
    expect(await readFile(path.join(root, 'tasks/crew/.highwatermark'), 'utf8')).toBe('2');
    expect((await store.create({ subject: 'c', description: '' })).id).toBe('3');
    await writeFile(path.join(root, 'tasks/crew/.highwatermark'), '10');
    expect((await store.create({ subject: 'd', description: '' })).id).toBe('11');
  });

  it('creates internal tracking tasks as Claude Code does and hides them from listings', async () => {
    const { root, store, taskText } = await openStore();
    await mkdir(path.join(root, 'tasks/crew'), { recursive: true });
    await writeFile(path.join(root, 'tasks/crew/.highwatermark'), '4');
    const prompt =
      'SCENARIO-TEAMMATE:alpha You are alpha. Claim task 1, implement it, report to team-lead, mark it completed.';
    const internal = await store.createInternal({ name: 'alpha', prompt });
    expect(internal.id).toBe('5');
    expect(await taskText('5')).toBe(
      '{\n  "id": "5",\n  "subject": "alpha",\n  "description": "SCENARIO-TEAMMATE:alpha You are alpha. Claim task 1, implement it, report to team-lead, mark it comp",\n  "status": "in_progress",\n  "blocks": [],\n  "blockedBy": [],\n  "metadata": {\n    "_internal": true\n  }\n}',
    );
    await store.create({ subject: 'visible', description: '' });
    expect((await store.list()).tasks.map((entry) => entry.task.id)).toEqual(['6']);
    const all = await store.list({ includeInternal: true });
    expect(all.tasks.map((entry) => [entry.task.id, entry.internal])).toEqual([
      ['5', true],
      ['6', false],
    ]);
    expect(formatTaskListText(all.tasks)).toBe('#6 [pending] visible');
  });
});

describe('update', () => {
  it('merges fields in place, appends owner at the end, removes it when unassigned', async () => {
    const { store, taskText } = await openStore();
    await store.create({ subject: 'One', description: 'first', metadata: { keep: 1, drop: 2 } });
    const claimed = await store.update('1', { status: 'in_progress' }, { agent: 'alpha' });
    expect(claimed.updatedFields).toEqual(['owner', 'status']);
    expect(claimed.ownerChange).toEqual({ to: 'alpha' });
    expect(formatTaskUpdatedText(claimed)).toBe('Updated task #1 owner, status');
    expect(Object.keys(JSON.parse(await taskText('1'))).at(-1)).toBe('owner');

    const edited = await store.update('1', {
      subject: 'One!',
      metadata: { drop: null, added: 'x' },
    });
    expect(edited.updatedFields).toEqual(['subject', 'metadata']);
    expect(JSON.parse(await taskText('1')).metadata).toEqual({ keep: 1, added: 'x' });

    const unassigned = await store.update('1', { owner: '' });
    expect(unassigned.ownerChange).toEqual({ from: 'alpha' });
    expect(JSON.parse(await taskText('1'))).not.toHaveProperty('owner');
    const again = await store.update('1', { owner: null });
    expect(again.updatedFields).toEqual([]);

    const completed = await store.update('1', { status: 'completed' });
    expect(formatTaskUpdatedText(completed)).toBe(
      'Updated task #1 status\n\nTask completed. Call TaskList now to find your next available task or see if your work unblocked others.',
    );
  });

  it('refuses to change the id and deletes on status "deleted"', async () => {
    const { store } = await openStore();
    await store.create({ subject: 'One', description: '' });
    const changes = { id: '9' } as unknown as Parameters<typeof store.update>[1];
    await expect(store.update('1', changes)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    const deleted = await store.update('1', { status: 'deleted' });
    expect(deleted).toMatchObject({ deleted: true, updatedFields: ['deleted'] });
    expect(await store.find('1')).toBeUndefined();
  });

  it('lets the beforeComplete hook veto a completion, leaving the file unchanged', async () => {
    const seen: Array<[string, string | undefined]> = [];
    const { store, taskText } = await openStore({
      hooks: {
        beforeComplete: (task, agent) => {
          seen.push([task.id, agent]);
          return task.subject.includes('untested')
            ? { allow: false, reason: 'run the tests first' }
            : { allow: true };
        },
      },
    });
    await store.create({ subject: 'untested work', description: '' });
    await store.create({ subject: 'tested work', description: '' });
    const before = await taskText('1');
    const veto = await store
      .update('1', { status: 'completed' }, { agent: 'beta' })
      .catch((error) => error);
    expect(veto).toBeInstanceOf(TaskError);
    expect(veto).toMatchObject({
      code: 'COMPLETION_VETOED',
      details: { reason: 'run the tests first' },
    });
    expect(veto.message).toContain('run the tests first');
    expect(await taskText('1')).toBe(before);
    await store.update('2', { status: 'completed' }, { agent: 'beta' });
    expect((await store.get('2')).status).toBe('completed');
    expect(seen).toEqual([
      ['1', 'beta'],
      ['2', 'beta'],
    ]);
  });
});

describe('dependencies and availability', () => {
  it('writes both directions, computes availability from the blockers, refuses cycles', async () => {
    const { store, taskText } = await openStore();
    for (const subject of ['build', 'test', 'ship'])
      await store.create({ subject, description: '' });
    await store.addDependency('1', '2');
    const viaUpdate = await store.update('3', { addBlockedBy: ['2'] });
    expect(viaUpdate.updatedFields).toEqual(['blockedBy']);
    expect(JSON.parse(await taskText('1')).blocks).toEqual(['2']);
    expect(JSON.parse(await taskText('2'))).toMatchObject({ blocks: ['3'], blockedBy: ['1'] });

    let listing = await store.list();
    expect(listing.tasks.map((entry) => entry.available)).toEqual([true, false, false]);
    expect(formatTaskListText(listing.tasks)).toBe(
      '#1 [pending] build\n#2 [pending] test [blocked by #1]\n#3 [pending] ship [blocked by #2]',
    );

    await store.update('1', { status: 'completed', owner: 'alpha' });
    listing = await store.list();
    expect(listing.tasks.map((entry) => entry.available)).toEqual([false, true, false]);
    expect(formatTaskListText(listing.tasks)).toBe(
      '#1 [completed] build (alpha)\n#2 [pending] test\n#3 [pending] ship [blocked by #2]',
    );
    expect(JSON.parse(await taskText('2')).blockedBy).toEqual(['1']);
    expect(formatTaskDetailsText(await store.get('2'))).toBe(
      'Task #2: test\nStatus: pending\nDescription: \nBlocked by: #1\nBlocks: #3',
    );

    const cycle = await store.addDependency('3', '1').catch((error) => error);
    expect(cycle).toMatchObject({
      code: 'DEPENDENCY_CYCLE',
      details: { cycle: ['3', '1', '2', '3'] },
    });
    expect(cycle.message).toContain('3 → 1 → 2 → 3');
    const direct = await store.addDependency('2', '1').catch((error) => error);
    expect(direct.message).toContain('2 → 1 → 2');
  });
});

describe('claim', () => {
  it('reports the seeds’ failure reasons and claims the lowest available id', async () => {
    const { store, taskText } = await openStore();
    for (const subject of ['a', 'b', 'c', 'd']) await store.create({ subject, description: '' });
    await store.addDependency('1', '3');
    expect(await store.claim('99', 'alpha')).toEqual({ success: false, reason: 'task_not_found' });

    const first = await store.claimNextAvailable('alpha');
    expect(first).toMatchObject({
      success: true,
      ownerChanged: true,
      task: { id: '1', owner: 'alpha' },
    });
    expect(JSON.parse(await taskText('1'))).toMatchObject({
      status: 'in_progress',
      owner: 'alpha',
    });
    expect(await store.claim('1', 'beta')).toMatchObject({
      success: false,
      reason: 'already_claimed',
    });
    expect(await store.claim('3', 'beta')).toMatchObject({
      success: false,
      reason: 'blocked',
      blockedByTasks: ['1'],
    });
    expect(await store.claim('2', 'alpha', { checkAgentBusy: true })).toMatchObject({
      success: false,
      reason: 'agent_busy',
      busyWithTasks: ['1'],
    });
    expect(await store.claimNextAvailable('beta')).toMatchObject({
      success: true,
      task: { id: '2' },
    });
    await store.update('4', { status: 'completed' });
    expect(await store.claim('4', 'beta')).toMatchObject({
      success: false,
      reason: 'already_resolved',
    });
    expect(await store.claimNextAvailable('gamma')).toEqual({
      success: false,
      reason: 'no_available_task',
    });
  });

  it('unassigns an agent’s unfinished tasks and words the lead’s notification like Claude Code', async () => {
    const { store, taskText } = await openStore();
    for (const subject of ['a', 'b', 'c']) await store.create({ subject, description: '' });
    await store.claim('1', 'alpha');
    await store.claim('2', 'alpha');
    await store.claim('3', 'alpha');
    await store.update('3', { status: 'completed' });
    const result = await store.unassignAgentTasks('alpha', { reason: 'terminated' });
    expect(result.unassignedTasks).toEqual([
      { id: '1', subject: 'a' },
      { id: '2', subject: 'b' },
    ]);
    expect(result.notificationMessage).toBe(
      'alpha was terminated. 2 task(s) were unassigned: #1 "a", #2 "b". Use TaskList to check availability and TaskUpdate with owner to reassign them to idle teammates.',
    );
    expect(await taskText('1')).toBe(
      '{\n  "id": "1",\n  "subject": "a",\n  "description": "",\n  "status": "pending",\n  "blocks": [],\n  "blockedBy": []\n}',
    );
    expect(JSON.parse(await taskText('3'))).toMatchObject({ owner: 'alpha', status: 'completed' });
    const none = await store.unassignAgentTasks('alpha', { reason: 'shutdown' });
    expect(none.notificationMessage).toBe('alpha has shut down.');
  });

  it('keeps leases in the sidecar; an expired lease makes the task claimable again', async () => {
    let now = 1_000_000;
    const { root, store, taskText } = await openStore({ clock: () => now });
    await store.create({ subject: 'leased', description: '' });
    const claim = await store.claim('1', 'alpha', { leaseMs: 5_000 });
    expect(claim).toMatchObject({ success: true, lease: { owner: 'alpha', expiresAt: 1_005_000 } });
    const sidecar = JSON.parse(
      await readFile(path.join(root, 'teams/crew/.muster/task-leases.json'), 'utf8'),
    );
    expect(sidecar.leases['1']).toMatchObject({ owner: 'alpha', expiresAt: 1_005_000 });
    expect(Object.keys(JSON.parse(await taskText('1')))).toEqual([
      'id',
      'subject',
      'description',
      'status',
      'blocks',
      'blockedBy',
      'owner',
    ]);

    now += 4_000;
    await store.renewLease('1', 'alpha', 5_000);
    now += 4_000;
    expect((await store.list()).tasks[0]).toMatchObject({ leaseExpired: false, available: false });
    expect(await store.claim('1', 'beta')).toMatchObject({
      success: false,
      reason: 'already_claimed',
    });

    now += 2_000;
    expect((await store.list()).tasks[0]).toMatchObject({ leaseExpired: true, available: true });
    const takeover = await store.claimNextAvailable('beta', { leaseMs: 5_000 });
    expect(takeover).toMatchObject({
      success: true,
      previousOwner: 'alpha',
      task: { owner: 'beta' },
    });
    await expect(store.renewLease('1', 'alpha', 5_000)).rejects.toMatchObject({
      code: 'NOT_OWNER',
    });
    await store.update('1', { status: 'completed' });
    const after = JSON.parse(
      await readFile(path.join(root, 'teams/crew/.muster/task-leases.json'), 'utf8'),
    );
    expect(after.leases).toEqual({});
  });
});

describe('list', () => {
  it('reports files that fail validation as problems and skips lock artefacts silently', async () => {
    const { root, store } = await openStore();
    await store.create({ subject: 'good', description: '' });
    await store.create({ subject: 'will break', description: '' });
    const folder = path.join(root, 'tasks/crew');
    await writeFile(path.join(folder, '2.json'), '{"id": "2", "subject": ');
    await writeFile(path.join(folder, 'notes.json'), '{}');
    await writeFile(
      path.join(folder, '3.json'),
      '{"id":"4","subject":"s","description":"","status":"pending","blocks":[],"blockedBy":[]}',
    );
    await mkdir(path.join(folder, '1.json.lock'));
    await writeFile(path.join(folder, '.highwatermark'), '0');
    const { tasks, problems } = await store.list();
    expect(tasks.map((entry) => entry.task.id)).toEqual(['1']);
    expect(problems.map((problem) => [path.basename(problem.file), problem.code])).toEqual([
      ['2.json', 'CORRUPT_FILE'],
      ['3.json', 'CORRUPT_FILE'],
      ['notes.json', 'INVALID_TASK_ID'],
    ]);
    expect(problems[1]!.message).toContain('says its id is "4"');
  });

  it('builds task_assignment payloads that match the protocol schema', () => {
    const payload = buildTaskAssignment(
      { id: '1', subject: 's', description: 'd' },
      'team-lead',
      '2026-11-22T12:35:59.085Z',
    );
    expect(TaskAssignmentSchema.parse(payload)).toEqual(payload);
    expect(JSON.stringify(payload)).toBe(
      '{"type":"task_assignment","taskId":"1","subject":"s","description":"d","assignedBy":"team-lead","timestamp":"2026-11-22T12:35:59.085Z"}',
    );
  });
});
