import { readFile, access } from 'node:fs/promises';
import path from 'node:path';
import { formatJsonFile } from '@muster/protocol';
import { makeTempDirectory } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import { createTaskStore, formatTaskListText } from './index.js';
import { copyReferenceState, snapshotTree } from './test-support.js';

// Claude Code 2.1.45 wrote these states; muster must read them and change only what an
// operation changes, byte for byte in Claude Code's style.
async function openReference(state: string) {
  const root = await makeTempDirectory('muster-tasks-reference-');
  await copyReferenceState(state, root);
  const store = createTaskStore({ root, team: 'conf-team' });
  const folder = path.join(root, 'tasks', 'conf-team');
  const text = (name: string) => readFile(path.join(folder, name), 'utf8');
  return { root, store, folder, text };
}

/** Files under `tasks/` and `teams/` other than the ones named, for "nothing else changed". */
function without(snapshot: Record<string, string>, ...names: string[]) {
  const copy = { ...snapshot };
  for (const name of names) delete copy[name];
  return copy;
}

describe('Claude Code 2.1.45 reference states', () => {
  it('loads state 06 (all teammates spawned) and lists it as Claude Code does', async () => {
    const { store, text } = await openReference('06-all-teammates-spawned');
    const listing = await store.list();
    expect(listing.problems).toEqual([]);
    expect(formatTaskListText(listing.tasks)).toBe(
      [
        '#1 [in_progress] Implement greeting module (alpha)',
        '#2 [pending] Test greeting module [blocked by #1]',
        '#3 [pending] Document greeting module [blocked by #2]',
      ].join('\n'),
    );
    const all = await store.list({ includeInternal: true });
    expect(all.tasks.map((entry) => [entry.task.id, entry.internal])).toEqual([
      ['1', false],
      ['2', false],
      ['3', false],
      ['5', true],
      ['6', true],
      ['7', true],
    ]);
    for (const entry of all.tasks) {
      expect(formatJsonFile(entry.task)).toBe(await text(`${entry.task.id}.json`));
    }
  });

  it('loads state 11 (all shutdowns approved): finished blockers are no longer listed', async () => {
    const { store } = await openReference('11-all-shutdowns-approved');
    const listing = await store.list();
    expect(listing.problems).toEqual([]);
    expect(formatTaskListText(listing.tasks)).toBe(
      [
        '#1 [completed] Implement greeting module (alpha)',
        '#2 [completed] Test greeting module (beta)',
        '#3 [pending] Document greeting module (alpha)',
      ].join('\n'),
    );
  });

  it('unassigns and claims on state 06 changing only owner and status', async () => {
    const { root, store, text } = await openReference('06-all-teammates-spawned');
    const original = await text('1.json');
    const before = await snapshotTree(root);

    expect(await store.claim('1', 'beta')).toMatchObject({ reason: 'already_claimed' });
    expect(await snapshotTree(root)).toEqual(before);

    const released = await store.unassignAgentTasks('alpha', { reason: 'shutdown' });
    expect(released.notificationMessage).toBe(
      'alpha has shut down. 1 task(s) were unassigned: #1 "Implement greeting module". Use TaskList to check availability and TaskUpdate with owner to reassign them to idle teammates.',
    );
    const unassigned = original
      .replace('"status": "in_progress"', '"status": "pending"')
      .replace(',\n  "owner": "alpha"\n}', '\n}');
    expect(unassigned).not.toBe(original);
    expect(await text('1.json')).toBe(unassigned);
    const afterUnassign = await snapshotTree(root);
    expect(without(afterUnassign, 'tasks/conf-team/1.json')).toEqual(
      without(before, 'tasks/conf-team/1.json'),
    );

    const claim = await store.claim('1', 'beta');
    expect(claim).toMatchObject({ success: true, ownerChanged: true });
    expect(await text('1.json')).toBe(
      unassigned
        .replace('"status": "pending"', '"status": "in_progress"')
        .replace(/\n}$/, ',\n  "owner": "beta"\n}'),
    );
    expect(without(await snapshotTree(root), 'tasks/conf-team/1.json')).toEqual(
      without(before, 'tasks/conf-team/1.json'),
    );
  });

  it('unassigns on state 11, removing an owner that Claude Code appended after metadata', async () => {
    const { root, store, text } = await openReference('11-all-shutdowns-approved');
    const original = await text('3.json');
    const before = await snapshotTree(root);
    const released = await store.unassignAgentTasks('alpha', { reason: 'terminated' });
    expect(released.unassignedTasks).toEqual([{ id: '3', subject: 'Document greeting module' }]);
    expect(await text('3.json')).toBe(original.replace(',\n  "owner": "alpha"\n}', '\n}'));
    expect(without(await snapshotTree(root), 'tasks/conf-team/3.json')).toEqual(
      without(before, 'tasks/conf-team/3.json'),
    );
  });

  it('deletes on state 06: file gone, references cleaned, watermark raised only when higher', async () => {
    const { root, store, folder, text } = await openReference('06-all-teammates-spawned');
    const original = { one: await text('1.json'), three: await text('3.json') };
    const before = await snapshotTree(root);

    const deleted = await store.delete('2');
    expect(deleted.cleanedReferences).toEqual(['1', '3']);
    await expect(access(path.join(folder, '2.json'))).rejects.toThrow();
    expect(await text('1.json')).toBe(
      original.one.replace('"blocks": [\n    "2"\n  ]', '"blocks": []'),
    );
    expect(await text('3.json')).toBe(
      original.three.replace('"blockedBy": [\n    "2"\n  ]', '"blockedBy": []'),
    );
    expect(await text('.highwatermark')).toBe('4');
    const changed = ['tasks/conf-team/1.json', 'tasks/conf-team/2.json', 'tasks/conf-team/3.json'];
    expect(without(await snapshotTree(root), ...changed)).toEqual(without(before, ...changed));

    await store.delete('7');
    expect(await text('.highwatermark')).toBe('7');
    expect((await store.create({ subject: 'next', description: '' })).id).toBe('8');
  });
});
