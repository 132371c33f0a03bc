// Background agents: launched through the spawn tool at the scripted model (a TEST DOUBLE of
// the Messages API), their notification delivered mid-turn and between turns, the state
// machine's races, the no-follow output file, and TaskOutput / TaskStop.
import { lstat, readFile, stat, symlink, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ToolContext } from '@muster/query';
import { makeTempDirectory } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createBackgroundAgents, type BackgroundLaunch } from './background-agent.js';
import { createNotificationQueue } from './background-agent-notifications.js';
import type { SubagentOutcome } from './subagent.js';
import { createTaskOutputTool } from './task-output.js';
import { createTaskStopTool } from './task-stop.js';
import type { TeamEvent } from './team-event.js';
import {
  afterToolResult,
  isParentRequest,
  lastText,
  openSpawnParent,
  REVIEWER,
  say,
  toolEnd,
  use,
} from './spawn-tool-test-support.js';

const outcome = (
  text: string,
  reason: SubagentOutcome['reason'] = 'completed',
): SubagentOutcome => ({
  text,
  reason,
  toolUses: 0,
  durationMs: 1,
  usage: { inputTokens: 1, cacheCreationInputTokens: 0, cacheReadInputTokens: 0, outputTokens: 1 },
  totalTokens: 2,
  model: 'm',
});

/** A launch whose run ends when the test says so (or when it is killed). */
function controlledLaunch(taskId: string) {
  let finish: (value: SubagentOutcome) => void = () => undefined;
  const ended = new Promise<SubagentOutcome>((resolve) => (finish = resolve));
  const launch: BackgroundLaunch = {
    taskId,
    agentType: 'reviewer',
    description: `job ${taskId}`,
    run: (signal) => {
      // A killed run still reports "completed" afterwards: the first end must win.
      signal.addEventListener(
        'abort',
        () => setTimeout(() => finish(outcome('late completion')), 5),
        { once: true },
      );
      return ended;
    },
  };
  return { launch, finish: (value: SubagentOutcome) => finish(value) };
}

async function registry() {
  const sessionDirectory = await makeTempDirectory('muster-background-');
  const notifications = createNotificationQueue();
  const events: TeamEvent[] = [];
  const agents = createBackgroundAgents({
    sessionDirectory,
    parentName: 'team-lead',
    notifications,
    onEvent: (event) => events.push(event),
  });
  return { sessionDirectory, notifications, events, agents };
}

const fakeContext = { signal: new AbortController().signal } as unknown as ToolContext;

describe('background agents', () => {
  it('run through the spawn tool; the one notification joins the parent’s running turn (pendingInput)', async () => {
    const cwd = await makeTempDirectory('muster-background-cwd-');
    const sessionDirectory = await makeTempDirectory('muster-background-session-');
    const notifications = createNotificationQueue();
    const events: TeamEvent[] = [];
    const agents = createBackgroundAgents({
      sessionDirectory,
      parentName: 'team-lead',
      notifications,
      onEvent: (event) => events.push(event),
    });
    const waitTool = {
      name: 'WaitForNotice',
      description: 'Test tool: returns once a notification waits.',
      inputSchema: z.strictObject({}),
      isReadOnly: () => true,
      isConcurrencySafe: () => true,
      async call() {
        const deadline = Date.now() + 20_000;
        while (notifications.size === 0 && Date.now() < deadline)
          await new Promise((resolve) => setTimeout(resolve, 10));
        return { content: 'waited' };
      },
    };
    const parent = openSpawnParent({
      cwd,
      tools: [waitTool],
      spawn: { background: agents },
      pendingInput: () => notifications.pendingInput(),
      script: (request) => {
        if (!isParentRequest(request)) return say('Background review: all good.');
        const text = lastText(request);
        if (!afterToolResult(request)) {
          return use('Task', {
            description: 'Review in background',
            prompt: 'Review it',
            subagent_type: 'reviewer',
            run_in_background: true,
          });
        }
        if (text.includes('Background agent started.')) return use('WaitForNotice', {});
        return say('Noted the notification.');
      },
    });
    try {
      const { result, events: turnEvents } = await parent.run('go');
      expect(result.reason).toBe('completed');
      const launched = toolEnd(turnEvents, 'Task');
      expect(launched.isError).toBe(false);
      const taskId = /agentId: (a[0-9a-f]{16})/.exec(launched.resultText)![1]!;
      expect(turnEvents.some((event) => event.type === 'input_delivered')).toBe(true);
      const parentRequests = parent.scriptedFetch.requests().filter(isParentRequest);
      const delivered = lastText(parentRequests.at(-1)!);
      expect(delivered).toContain(`<task-id>${taskId}</task-id>`);
      expect(delivered).toContain('<status>completed</status>');
      expect(delivered).toContain('<result>Background review: all good.</result>');
      expect(notifications.size).toBe(0);
      const task = agents.get(taskId)!;
      expect(task.status).toBe('completed');
      expect(task.outputFile).toBe(path.join(sessionDirectory, 'tasks', `${taskId}.output`));
      expect((await stat(task.outputFile)).mode & 0o777).toBe(0o600);
      expect(await readFile(task.outputFile, 'utf8')).toContain('Background review: all good.');
      expect(events.map((event) => event.type)).toEqual(['spawn', 'spawn_end']);
      expect(events[1]).toMatchObject({
        path: 'background',
        agentName: taskId,
        status: 'completed',
      });
    } finally {
      await parent.close();
      await agents.close();
    }
  });

  it('a kill after the completion changes nothing; a completion after a kill changes nothing; one notification each', async () => {
    const { agents, notifications, events } = await registry();
    const first = controlledLaunch('a0000000000000001');
    await agents.launch(first.launch);
    first.finish(outcome('finished first'));
    await agents.wait('a0000000000000001', 10_000);
    const stopped = await agents.stop('a0000000000000001');
    expect(stopped.status).toBe('completed');
    expect(stopped.result).toBe('finished first');

    const second = controlledLaunch('a0000000000000002');
    await agents.launch(second.launch);
    const killed = await agents.stop('a0000000000000002', 'no longer needed');
    expect(killed.status).toBe('killed');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(agents.get('a0000000000000002')!.status).toBe('killed');
    expect(agents.get('a0000000000000002')!.result).toBe('no longer needed');

    const texts = notifications.drain();
    expect(texts).toHaveLength(2);
    expect(texts[0]).toContain('<status>completed</status>');
    expect(texts[1]).toContain('<status>killed</status>');
    expect(
      events
        .filter((event) => event.type === 'spawn_end')
        .map((event) => 'status' in event && event.status),
    ).toEqual(['completed', 'killed']);
  });

  it('refuses an output path that is a symbolic link, leaving its target alone', async () => {
    const { agents, sessionDirectory } = await registry();
    const target = path.join(sessionDirectory, 'target.txt');
    await writeFile(target, 'keep me');
    await mkdir(path.join(sessionDirectory, 'tasks'));
    await symlink(target, path.join(sessionDirectory, 'tasks', 'a00000000000000aa.output'));
    await expect(agents.launch(controlledLaunch('a00000000000000aa').launch)).rejects.toThrow(
      /must not be a symbolic link/,
    );
    expect(await readFile(target, 'utf8')).toBe('keep me');
    expect(
      (
        await lstat(path.join(sessionDirectory, 'tasks', 'a00000000000000aa.output'))
      ).isSymbolicLink(),
    ).toBe(true);
    expect(agents.list()).toEqual([]);
  });

  it('TaskOutput waits with a timeout and reads the result; TaskStop kills; unknown ids are errors', async () => {
    const { agents } = await registry();
    const output = createTaskOutputTool(agents);
    const stop = createTaskStopTool(agents);
    const job = controlledLaunch('a0000000000000003');
    await agents.launch(job.launch);
    const early = await output.call(
      { task_id: 'a0000000000000003', block: false, timeout: 0 },
      fakeContext,
    );
    expect(early.content).toContain('<retrieval_status>not_ready</retrieval_status>');
    const timedOut = await output.call(
      { task_id: 'a0000000000000003', block: true, timeout: 50 },
      fakeContext,
    );
    expect(timedOut.content).toContain('<retrieval_status>timeout</retrieval_status>');
    expect(timedOut.content).toContain('<status>running</status>');
    setTimeout(() => job.finish(outcome('the report')), 20);
    const done = await output.call(
      { task_id: 'a0000000000000003', block: true, timeout: 20_000 },
      fakeContext,
    );
    expect(done.content).toContain('<retrieval_status>success</retrieval_status>');
    expect(done.content).toContain('<output>the report</output>');

    const other = controlledLaunch('a0000000000000004');
    await agents.launch(other.launch);
    const stopped = await stop.call({ task_id: 'a0000000000000004' }, fakeContext);
    expect(stopped.isError).toBeUndefined();
    expect(JSON.parse(stopped.content as string)).toMatchObject({
      task_id: 'a0000000000000004',
      task_type: 'local_agent',
    });
    expect(agents.get('a0000000000000004')!.status).toBe('killed');
    const again = await stop.call({ shell_id: 'a0000000000000004' }, fakeContext);
    expect(again).toMatchObject({
      isError: true,
      content: expect.stringContaining('already ended (killed)'),
    });
    const unknown = await output.call({ task_id: 'nope', block: false, timeout: 0 }, fakeContext);
    expect(unknown.isError).toBe(true);
    expect(unknown.content).toContain('a0000000000000003, a0000000000000004');
    expect((await stop.call({}, fakeContext)).isError).toBe(true);
  });
});

describe('background agents and their parent', () => {
  it('a definition with background: true runs in the background; closing the parent kills it (one killed notification)', async () => {
    const cwd = await makeTempDirectory('muster-background-close-');
    const sessionDirectory = await makeTempDirectory('muster-background-session-');
    const notifications = createNotificationQueue();
    const agents = createBackgroundAgents({
      sessionDirectory,
      parentName: 'team-lead',
      notifications,
    });
    const watcher = { ...REVIEWER, name: 'watcher', background: true };
    let childAborted = false;
    const parent = openSpawnParent({
      cwd,
      definitions: [watcher],
      spawn: { background: agents },
      script: (request, context) => {
        if (!isParentRequest(request)) {
          context.signal.addEventListener('abort', () => (childAborted = true), { once: true });
          return {
            ...say('never'),
            fault: { kind: 'pings-only' as const, durationMs: 120_000, intervalMs: 200 },
          };
        }
        return afterToolResult(request)
          ? say('It runs.')
          : use('Task', {
              description: 'Watch the logs',
              prompt: 'Watch',
              subagent_type: 'watcher',
            });
      },
    });
    let taskId: string | undefined;
    try {
      const end = toolEnd((await parent.run('go')).events, 'Task');
      expect(end.resultText).toContain('Background agent started.');
      taskId = /agentId: (a[0-9a-f]{16})/.exec(end.resultText)![1]!;
      expect(agents.get(taskId)!.status).toBe('running');
    } finally {
      await parent.close();
    }
    if (taskId === undefined) throw new Error('no task was launched');
    await agents.wait(taskId, 20_000);
    expect(agents.get(taskId)!.status).toBe('killed');
    expect(childAborted).toBe(true);
    const texts = notifications.drain();
    expect(texts).toHaveLength(1);
    expect(texts[0]).toContain('<status>killed</status>');
  });
});
