// The runtime's watch on the team's task list, on real task files: one `tasks` event per
// change, a list that follows the team, the current task of an owner, and nothing before start.
import { createTaskStore } from '@muster/tasks';
import { makeTempDirectory } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import { createTaskWatch } from './team-runtime-tasks.js';
import type { TeamEvent } from './team-event.js';

describe('createTaskWatch', () => {
  it('emits the list once per change, follows the team, and empties it once when the team goes', async () => {
    const root = await makeTempDirectory('muster-task-watch-');
    const events: TeamEvent[] = [];
    let team: string | undefined = 'crew';
    const watch = createTaskWatch({
      root,
      listName: () => team,
      emit: (event) => events.push(event),
      intervalMs: 0,
    });
    watch.start();
    const store = createTaskStore({ root, team: 'crew' });
    const first = await store.create({ subject: 'Build', description: 'npm run build' });
    await store.create({ subject: 'Test', description: 'npm test', activeForm: 'Testing' });
    await store.update('2', { status: 'in_progress', owner: 'bob' });
    expect((await watch.read())?.tasks.map(({ task }) => task.subject)).toEqual(['Build', 'Test']);
    await watch.read();
    expect(events).toHaveLength(1);
    expect(watch.currentTaskOf(['bob', 'bob@crew'])).toEqual({
      id: '2',
      subject: 'Test',
      activeForm: 'Testing',
    });
    expect(watch.currentTaskOf(['alice'])).toBeUndefined();
    await store.update(first.id, { status: 'in_progress', owner: 'bob@crew' });
    await watch.read();
    expect(events).toHaveLength(2);
    // The lowest id first, by name or agent id.
    expect(watch.currentTaskOf(['bob', 'bob@crew'])?.id).toBe('1');
    team = undefined;
    expect(await watch.read()).toBeUndefined();
    expect(events.at(-1)).toMatchObject({ type: 'tasks', teamName: 'crew', tasks: [] });
    expect(watch.currentTaskOf(['bob'])).toBeUndefined();
    await watch.read();
    expect(events).toHaveLength(3);
    watch.close();
  });

  it('reads nothing on events before start, and after start a task tool nudges a read', async () => {
    const root = await makeTempDirectory('muster-task-watch-');
    const events: TeamEvent[] = [];
    const watch = createTaskWatch({
      root,
      listName: () => 'crew',
      emit: (event) => events.push(event),
      intervalMs: 0,
    });
    await createTaskStore({ root, team: 'crew' }).create({ subject: 'A', description: 'a' });
    const toolEnd: TeamEvent = {
      type: 'agent',
      agentName: 'team-lead',
      event: {
        type: 'tool_call_end',
        toolUseId: 'toolu_1',
        name: 'TaskCreate',
        allowed: true,
        isError: false,
        durationMs: 1,
        resultText: 'Task #1 created',
      },
      at: 0,
    };
    watch.observe(toolEnd);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(events).toHaveLength(0);
    watch.start();
    watch.observe(toolEnd);
    await until(() => events.length === 1);
    expect(events[0]).toMatchObject({ type: 'tasks', teamName: 'crew' });
    watch.close();
  });
});

async function until(check: () => boolean): Promise<void> {
  for (let tries = 0; tries < 400 && !check(); tries += 1) {
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  expect(check()).toBe(true);
}
