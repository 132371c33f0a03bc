// listTaskLists tells a team's task list from one Claude Code kept after its session ended
// and from a leftover of a team deleted without its tasks, on real folders.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { makeTempDirectory } from '@muster/test-utils';
import { expect, it } from 'vitest';
import { createTeam, listTaskLists } from './index.js';

it('classifies every task list under the root and counts its task files', async () => {
  const root = await makeTempDirectory();
  await createTeam({ root, name: 'crew', cwd: '/repo' });
  const task = (id: string) =>
    JSON.stringify({
      id,
      subject: 's',
      description: '',
      status: 'pending',
      blocks: [],
      blockedBy: [],
    });
  const folders: Record<string, string[]> = {
    'session-0123abcd': ['1.json', '2.json', '.lock', '.highwatermark'],
    '0f8fad5b-d9cb-469f-a165-70867728950e': ['1.json'],
    'old-team': ['3.json', 'notes.txt'],
    '.muster-private': ['1.json'],
  };
  for (const [folder, files] of Object.entries(folders)) {
    await mkdir(path.join(root, 'tasks', folder), { recursive: true });
    for (const file of files) {
      await writeFile(
        path.join(root, 'tasks', folder, file),
        file.endsWith('.json') ? task(file.split('.')[0]!) : '',
      );
    }
  }
  const lists = await listTaskLists(root);
  expect(lists.map(({ team, status, taskCount }) => ({ team, status, taskCount }))).toEqual([
    {
      team: '0f8fad5b-d9cb-469f-a165-70867728950e',
      status: 'kept-from-ended-session',
      taskCount: 1,
    },
    { team: 'crew', status: 'team', taskCount: 0 },
    { team: 'old-team', status: 'leftover', taskCount: 1 },
    { team: 'session-0123abcd', status: 'kept-from-ended-session', taskCount: 2 },
  ]);
  expect(lists.find((entry) => entry.team === 'old-team')!.reason).toContain(
    'no teams/old-team/config.json',
  );
  expect(await listTaskLists(await makeTempDirectory())).toEqual([]);
});
