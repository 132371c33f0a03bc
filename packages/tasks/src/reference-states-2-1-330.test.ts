// Claude Code 2.1.330 wrote these task lists (session teams). Its task files have no stable
// key order (a rewrite puts `owner` before `status`, another appends it last): muster reads
// them whatever the order, keeps every key it does not change where it was, and works on a
// task list whose team folder is gone (the normal state after a session ends).
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { formatJsonFile } from '@muster/protocol';
import { claudeCode2_1_330ReferenceDirectory, makeTempDirectory } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import { createTaskStore, formatTaskListText } from './index.js';
import { copyReferenceState, snapshotTree } from './test-support.js';

const states = [
  { state: 'in-process-07-all-teammates-spawned', team: 'session-c29861cf' },
  { state: 'in-process-13-all-teammates-removed-after-shutdown', team: 'session-c29861cf' },
  { state: 'tmux-08-permission-answered', team: 'session-7f85384e' },
];

async function openReference(state: string, team: string) {
  const root = await makeTempDirectory('muster-tasks-reference-330-');
  await copyReferenceState(state, root, claudeCode2_1_330ReferenceDirectory());
  const folder = path.join(root, 'tasks', team);
  const text = (name: string) => readFile(path.join(folder, name), 'utf8');
  return { root, folder, text, store: createTaskStore({ root, team }) };
}

function without(snapshot: Record<string, string>, ...names: string[]) {
  const copy = { ...snapshot };
  for (const name of names) delete copy[name];
  return copy;
}

describe.each(states)('Claude Code 2.1.330 state $state', ({ state, team }) => {
  it('lists every task as the file’s own JSON, before and after the session’s team folder is gone', async () => {
    const { root, store, text } = await openReference(state, team);
    for (const teamFolder of ['present', 'removed at /exit']) {
      if (teamFolder !== 'present') await rm(path.join(root, 'teams'), { recursive: true });
      const listing = await store.list();
      expect(listing.problems).toEqual([]);
      expect(listing.tasks.map((entry) => entry.task.id)).toEqual(['1', '2', '3']);
      for (const entry of listing.tasks) {
        const original = await text(`${entry.task.id}.json`);
        expect(entry.task).toEqual(JSON.parse(original));
        // Same keys, same order: serializing gives back exactly the bytes 2.1.330 wrote.
        expect(formatJsonFile(entry.task)).toBe(original);
      }
    }
  });

  it('hands out the next id above the watermark 2.1.330 left (task 4 was deleted)', async () => {
    const { store, text } = await openReference(state, team);
    expect(await text('.highwatermark')).toBe('4');
    const created = await store.create({ subject: 'Fifth', description: 'after a session' });
    expect(created.id).toBe('5');
    expect(Object.keys(JSON.parse(await text('5.json')))).toEqual([
      'id',
      'subject',
      'description',
      'status',
      'blocks',
      'blockedBy',
    ]);
  });
});

describe('muster updates of 2.1.330 task files', () => {
  it('changes only the field it sets, whether owner sits before status or was appended last', async () => {
    const { root, store, text } = await openReference(
      'in-process-07-all-teammates-spawned',
      'session-c29861cf',
    );
    const before = await snapshotTree(root);
    const task1 = await text('1.json'); // owner before status
    const task3 = await text('3.json'); // owner after metadata
    expect(task1.indexOf('"owner"')).toBeLessThan(task1.indexOf('"status"'));
    expect(task3.indexOf('"owner"')).toBeGreaterThan(task3.indexOf('"metadata"'));
    await store.update('1', { subject: 'Implement the greeting module' });
    await store.update('3', { status: 'in_progress', activeForm: 'Writing the docs' });
    expect(await text('1.json')).toBe(
      task1.replace('"Implement greeting module"', '"Implement the greeting module"'),
    );
    expect(await text('3.json')).toBe(
      task3
        .replace('"status": "pending"', '"status": "in_progress"')
        .replace('"activeForm": "Documenting"', '"activeForm": "Writing the docs"'),
    );
    const changed = ['tasks/session-c29861cf/1.json', 'tasks/session-c29861cf/3.json'];
    expect(without(await snapshotTree(root), ...changed)).toEqual(without(before, ...changed));
  });

  it('keeps keys it does not know, in place, through an update and a claim', async () => {
    const { store, folder, text } = await openReference(
      'in-process-13-all-teammates-removed-after-shutdown',
      'session-c29861cf',
    );
    const task = JSON.parse(await text('3.json'));
    // A future 2.1.x key in the middle of the file, and one at the end.
    const withUnknown = {
      id: task.id,
      subject: task.subject,
      leaseHint: { by: 'cc', until: 1795479999999 },
      ...task,
      reviewers: ['alpha', 'beta'],
    };
    await writeFile(path.join(folder, '3.json'), JSON.stringify(withUnknown, null, 2));
    await store.update('3', { description: 'Add a README section with examples' });
    const claimed = await store.claim('3', 'gamma');
    expect(claimed).toMatchObject({ success: true });
    const after = JSON.parse(await text('3.json'));
    expect(Object.keys(after)).toEqual([...Object.keys(withUnknown), 'owner']);
    expect(after).toEqual({
      ...withUnknown,
      description: 'Add a README section with examples',
      status: 'in_progress',
      owner: 'gamma',
    });
  });

  it('deleting a task removes it from the other tasks’ blocks and blockedBy, as 2.1.330 does', async () => {
    const { store, text } = await openReference('tmux-08-permission-answered', 'session-7f85384e');
    const task1 = await text('1.json');
    const task3 = await text('3.json');
    const deleted = await store.delete('2');
    expect(deleted.cleanedReferences).toEqual(['1', '3']);
    expect(await text('1.json')).toBe(task1.replace('"blocks": [\n    "2"\n  ]', '"blocks": []'));
    expect(await text('3.json')).toBe(
      task3.replace('"blockedBy": [\n    "2"\n  ]', '"blockedBy": []'),
    );
    expect(await text('.highwatermark')).toBe('4');
    expect(formatTaskListText((await store.list()).tasks)).toBe(
      [
        '#1 [completed] Implement greeting module (alpha)',
        '#3 [pending] Document greeting module (alpha)',
      ].join('\n'),
    );
  });
});
