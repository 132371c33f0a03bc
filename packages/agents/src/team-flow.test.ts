// The seeds' whole flow through createTeamRuntime: a team, three teammates (one in plan mode, one
// in its own worktree), tasks with a dependency claimed and completed, a broadcast, a plan
// rejected then approved, one permission approved and one denied by the person, a shutdown
// refused then approved, TeamDelete. Every file of the team validates against the protocol's
// schemas whenever the flow changes something. Models: @muster/scripted-model, a TEST DOUBLE.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInProcessBackend } from '@muster/backends';
import { InboxSchema, TaskSchema, TeamConfigSchema } from '@muster/protocol';
import { startScriptedModel, type ScriptRequest } from '@muster/scripted-model';
import { makeGitRepository, makeTempDirectory } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import { createTeamRuntime } from './team-runtime.js';
import {
  FLOW_DONE,
  FLOW_TEAM,
  flowAgentOf,
  flowLeadScript,
  flowTeammateScript,
} from './team-flow-test-support.js';
import { lastText, scriptedModel, until } from './team-runtime-test-support.js';
import type { TeamEvent } from './team-event.js';

const DEFINITION = [
  '---',
  'name: isolated-writer',
  'description: Works in a worktree of its own.',
  'isolation: worktree',
  '---',
  'You work in your own git worktree.',
  '',
].join('\n');

/** Parses every file of the team with its schema; returns what failed (path: issue). */
async function invalidFiles(
  root: string,
  seen: { tasks: Set<string>; worktrees: Map<string, string> },
): Promise<string[]> {
  const problems: string[] = [];
  const check = async (
    path: string,
    parse: (value: unknown) => { success: boolean; error?: unknown },
  ) => {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch {
      return; // removed meanwhile (TeamDelete, a task deleted)
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      problems.push(`${path}: ${(error as Error).message}`);
      return;
    }
    const result = parse(value);
    if (!result.success) problems.push(`${path}: ${String(result.error)}`);
    if (path.endsWith('config.json') && typeof value === 'object' && value !== null) {
      for (const member of (value as { members: Array<{ name: string; worktreePath?: string }> })
        .members) {
        if (member.worktreePath !== undefined) seen.worktrees.set(member.name, member.worktreePath);
      }
    }
    if (path.includes('/tasks/') && typeof value === 'object' && value !== null) {
      const task = value as { id: string; status: string; owner?: string };
      seen.tasks.add(
        `${task.id} ${task.status}${task.owner === undefined ? '' : ` by ${task.owner}`}`,
      );
    }
  };
  const teamFolder = join(root, 'teams', FLOW_TEAM);
  await check(join(teamFolder, 'config.json'), (value) => TeamConfigSchema.safeParse(value));
  const inboxes = await readdir(join(teamFolder, 'inboxes')).catch(() => [] as string[]);
  for (const name of inboxes.filter((file) => file.endsWith('.json'))) {
    await check(join(teamFolder, 'inboxes', name), (value) => InboxSchema.safeParse(value));
  }
  const taskFolder = join(root, 'tasks', FLOW_TEAM);
  const tasks = await readdir(taskFolder).catch(() => [] as string[]);
  for (const name of tasks.filter((file) => /^\d+\.json$/.test(file))) {
    await check(join(taskFolder, name), (value) => TaskSchema.safeParse(value));
  }
  return problems;
}

/** Where each teammate runs in one run of the flow. */
type Placement = Record<'alice' | 'bob' | 'carol', 'in-process' | 'pty' | 'tmux'>;

async function runFlow(placement: Placement): Promise<void> {
  {
    const repository = await makeGitRepository({
      'README.md': '# flow\n',
      '.muster/agents/isolated-writer.md': DEFINITION,
    });
    const root = await makeTempDirectory('muster-flow-');
    const teammateRequests: ScriptRequest[] = [];
    const teammateScript = flowTeammateScript(join(root, 'plans', `${FLOW_TEAM}-bob.md`));
    const events: TeamEvent[] = [];
    const leadScript = flowLeadScript();
    // Teammates in-process and in their own processes share one script (the TEST DOUBLE);
    // process teammates reach it over HTTP.
    const teammates = (request: ScriptRequest) => {
      teammateRequests.push(request);
      return teammateScript(request);
    };
    const server = await startScriptedModel({ script: teammates });
    const processMembers = Object.values(placement).some((mode) => mode !== 'in-process');
    const runtime = await createTeamRuntime({
      root,
      cwd: repository.path,
      client: scriptedModel(leadScript).client,
      teammateClient: scriptedModel(teammates).client,
      model: 'claude-test-model',
      homeDirectory: repository.path,
      environment: { PATH: process.env.PATH, HOME: repository.path },
      modelEnvironment: {
        ANTHROPIC_API_KEY: 'sk-test-flow-0123456789',
        ANTHROPIC_BASE_URL: server.url,
      },
      teammateMode: ({ name }) => placement[name as keyof Placement],
      ...(processMembers ? {} : { backends: [createInProcessBackend({ processReaper: false })] }),
      askPolicy: 'person',
    });
    const problems: string[] = [];
    const seen = { tasks: new Set<string>(), worktrees: new Map<string, string>() };
    const checks: Array<Promise<void>> = [];
    runtime.subscribe((event) => {
      events.push(event);
      if (event.type === 'ask' && event.kind === 'permission') {
        const command = String(event.input?.command ?? '');
        void runtime.answer(
          event.askId,
          command.startsWith('rm ')
            ? { behavior: 'deny', message: 'Do not delete anything.' }
            : { behavior: 'allow' },
        );
      }
      if (
        ['spawn', 'ask', 'message', 'member_state'].includes(event.type) ||
        (event.type === 'agent' && event.event.type === 'tool_call_end')
      ) {
        checks.push(invalidFiles(root, seen).then((found) => void problems.push(...found)));
      }
    });
    try {
      const outcome = await runtime.run('Run the flow.', { timeoutMs: 120_000 });
      await Promise.all(checks);
      expect(problems).toEqual([]);
      expect(outcome.status).toBe('completed');
      expect(outcome.text).toBe(FLOW_DONE);

      const spawns = events.filter(
        (event): event is Extract<TeamEvent, { type: 'spawn' }> =>
          event.type === 'spawn' && event.path === 'teammate',
      );
      expect(spawns.map((event) => event.agentName).sort()).toEqual(['alice', 'bob', 'carol']);
      const answers = events.filter((event) => event.type === 'ask_answer');
      expect(answers.some((event) => event.behavior === 'allow')).toBe(true);
      const textsOf = (name: string) =>
        teammateRequests.filter((request) => flowAgentOf(request) === name).map(lastText);
      expect(
        answers.some(
          (event) => event.behavior === 'deny' && event.message === 'Do not delete anything.',
        ),
        `carol saw: ${JSON.stringify(textsOf('carol'))}\nasks: ${JSON.stringify(events.filter((event) => event.type === 'ask' || event.type === 'ask_answer'))}`,
      ).toBe(true);
      expect(textsOf('bob').some((text) => text.includes('[Plan Rejected] Add an edge case'))).toBe(
        true,
      );
      expect(textsOf('bob').some((text) => text.includes('[Plan Approved]'))).toBe(true);
      for (const name of ['alice', 'bob', 'carol']) {
        expect(textsOf(name).some((text) => text.includes('Tasks #1 and #2 are on the list'))).toBe(
          true,
        );
      }
      expect(textsOf('carol').some((text) => text.includes('Do not delete anything.'))).toBe(true);
      // Each task was claimed by a teammate from the list, and that teammate reported it completed.
      for (const id of ['1', '2']) {
        const claimer = ['alice', 'bob', 'carol'].find((name) =>
          textsOf(name).some((text) => text.includes(`You took task #${id} `)),
        );
        expect(claimer).toBeDefined();
        expect(
          events.some(
            (event) =>
              event.type === 'message' &&
              event.from === claimer &&
              event.protocolType === 'idle_notification' &&
              event.text.includes(`"completedTaskId":"${id}"`),
          ),
        ).toBe(true);
      }
      const toLead = events.filter(
        (event): event is Extract<TeamEvent, { type: 'message' }> =>
          event.type === 'message' && event.to === 'team-lead',
      );
      expect(
        toLead
          .filter((event) => event.protocolType === 'shutdown_rejected')
          .map((event) => event.from),
      ).toEqual(['carol']);
      expect(
        toLead
          .filter((event) => event.protocolType === 'shutdown_approved')
          .map((event) => event.from)
          .sort(),
      ).toEqual(['alice', 'bob', 'carol']);
      expect(runtime.members().every((member) => !member.alive)).toBe(true);
      // carol worked in a worktree of her own, recorded in the config; when she ended it was
      // removed if clean, and kept (with a warning naming it) if she wrote task files there.
      const worktree = seen.worktrees.get('carol');
      expect(worktree).toContain(join(repository.path, '.muster', 'worktrees'));
      if ([...seen.tasks].some((state) => state.endsWith('by carol'))) {
        await until('the kept-worktree notice', () =>
          events.some((event) => event.type === 'notice' && event.text.includes(worktree!))
            ? true
            : undefined,
        );
        expect((await repository.git('worktree', 'list')).includes(worktree!)).toBe(true);
      } else {
        await until("carol's worktree removed", async () =>
          (await repository.git('worktree', 'list')).includes(worktree!) ? undefined : true,
        );
      }
      const backends = Object.fromEntries(
        spawns.map((event) => [event.agentName, event.backendType]),
      );
      expect(backends).toEqual(placement);
    } finally {
      await runtime.close();
      await server.close();
    }
  }
}

describe('the whole team flow', () => {
  it('in-process teammates: from TeamCreate to TeamDelete with every file valid along the way', async () => {
    await runFlow({ alice: 'in-process', bob: 'in-process', carol: 'in-process' });
  }, 150_000);

  it('teammates mixed across in-process, pty and tmux', async () => {
    await runFlow({ alice: 'in-process', bob: 'pty', carol: 'tmux' });
  }, 150_000);
});
