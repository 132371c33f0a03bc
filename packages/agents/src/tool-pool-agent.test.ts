// The A1 parts composed as a spawn path uses them, on the real loop (@muster/query's
// createAgent and the real @anthropic-ai/sdk) whose model is @muster/scripted-model — a TEST
// DOUBLE of the Messages API: a definition file's pool, system prompt and model reach the
// model's request, and a TaskCompleted hook (a real process) vetoes a completion the model asks for.
import { access, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createPermissionContext } from '@muster/permissions';
import {
  createAgent,
  createModelClient,
  createPermissionAuthorizer,
  MODEL_ALIASES,
  rootsFromPermissionContext,
} from '@muster/query';
import {
  createScriptedFetch,
  reply,
  sequence,
  text,
  toolResults,
  toolUse,
} from '@muster/scripted-model';
import { createTaskStore } from '@muster/tasks';
import { addMember, createTeam } from '@muster/teams';
import { makeTempDirectory } from '@muster/test-utils';
import { createBuiltInTools, createTeamSession, createTeamTools } from '@muster/tools';
import { describe, expect, it } from 'vitest';
import { resolveAgentModel } from './agent-model.js';
import { loadAgentDefinitions } from './agent-definitions.js';
import { loadHooks } from './hooks.js';
import { taskCompletionHooks } from './hooks-task-completion.js';
import { buildSystemPrompt } from './system-prompt.js';
import { DEFAULT_AGENT_PROMPT, teammateCommunicationSection } from './system-prompt-defaults.js';
import { resolveToolPool } from './tool-pool.js';

describe('a definition, its pool, prompt and model, and hooks, on the real loop (scripted model test double)', () => {
  it('the request carries what the chains resolved, and a TaskCompleted hook exiting 2 refuses the completion', async () => {
    const root = await makeTempDirectory('muster-agents-compose-');
    const cwd = path.join(root, 'project');
    const home = path.join(root, 'home');
    await mkdir(path.join(cwd, '.muster', 'agents'), { recursive: true });
    await mkdir(home, { recursive: true });
    await writeFile(
      path.join(cwd, '.muster', 'agents', 'reviewer.md'),
      '---\nname: reviewer\ndescription: Reviews changes\ntools: Read, Grep\nmodel: haiku\n---\n\nYou review changes and report problems.\n',
    );
    await writeFile(
      path.join(cwd, '.muster', 'settings.json'),
      JSON.stringify({
        hooks: {
          TaskCompleted: [
            {
              hooks: [
                {
                  type: 'command',
                  command:
                    'cat > /dev/null; echo "Task 1 still has failing tests: run them first." >&2; exit 2',
                },
              ],
            },
          ],
        },
      }),
    );
    const team = await createTeam({ root, name: 'crew', cwd, dialect: 'v1' });
    await addMember(root, team.teamName, {
      name: 'alice',
      agentType: 'reviewer',
      model: MODEL_ALIASES['haiku']!,
      prompt: 'Review the change.',
      planModeRequired: false,
      cwd,
      backendType: 'in-process',
      tmuxPaneId: 'in-process',
    });
    await createTaskStore({ root, team: team.teamName }).create({
      subject: 'Review intro',
      description: 'Read intro.md',
    });

    const { definitions, problems } = await loadAgentDefinitions({ cwd, home });
    expect(problems).toEqual([]);
    const definition = definitions.get('reviewer')!;
    const hooks = await loadHooks({ cwd, home });
    const teamTools = createTeamTools({
      root,
      session: createTeamSession({ role: 'teammate', agentName: 'alice', teamName: team.teamName }),
      taskHooks: taskCompletionHooks(hooks, { teamName: team.teamName }),
    }).all;
    const pool = resolveToolPool({
      available: createBuiltInTools(),
      definition,
      async: false,
      teammate: true,
      teamTools,
    });
    const { model } = resolveAgentModel({
      environment: {},
      definition,
      parentModel: 'claude-opus-5-5',
    });
    const system = buildSystemPrompt({
      agentPrompt: definition.systemPrompt,
      defaultPrompt: DEFAULT_AGENT_PROMPT,
      append: teammateCommunicationSection({ agentName: 'alice', teamName: team.teamName }),
      environment: {
        cwd,
        model,
        toolNames: pool.tools.map((tool) => tool.name),
        platform: 'linux',
        date: '2026-11-24',
      },
    });

    const scriptedFetch = createScriptedFetch({
      script: sequence([
        toolUse('TaskUpdate', { taskId: '1', status: 'completed' }),
        text('I will run the tests first.'),
      ]),
    });
    const agent = createAgent({
      client: createModelClient({
        apiKey: 'sk-test-0123456789abcdef',
        baseURL: 'http://scripted-model.invalid',
        retryBaseMs: 1,
        fetch: scriptedFetch,
      }),
      model,
      identity: { name: 'alice', id: `alice@${team.teamName}` },
      system,
      tools: pool.tools,
      cwd,
      roots: () => ({ read: [cwd], write: [cwd] }),
      authorize: async () => ({ behavior: 'allow' }),
      environment: { PATH: process.env['PATH'] ?? '/usr/bin:/bin' },
    });
    try {
      const result = await agent.send('Review the change.').result;
      expect(result.text).toBe('I will run the tests first.');
    } finally {
      await agent.close();
    }

    const requests = scriptedFetch.requests();
    const first = requests[0]!.body as {
      model: string;
      system: unknown;
      tools: Array<{ name: string }>;
    };
    expect(first.model).toBe(MODEL_ALIASES['haiku']);
    // The system prompt reaches the model byte for byte, as one text block.
    expect(
      (first.system as Array<{ type: string; text: string }>).map((block) => block.text),
    ).toEqual([system]);
    expect(system.startsWith('You review changes and report problems.\n\n# Environment\n')).toBe(
      true,
    );
    expect(system).toContain('You are "alice", a member of the team "crew".');
    expect(first.tools.map((tool) => tool.name)).toEqual([
      'Grep',
      'Read',
      'TeamCreate',
      'TeamDelete',
      'SendMessage',
      'TaskCreate',
      'TaskGet',
      'TaskUpdate',
      'TaskList',
    ]);
    const [refused] = toolResults(requests[1]!);
    expect(refused!.isError).toBe(true);
    expect(String(refused!.content)).toContain('Task 1 still has failing tests: run them first.');
    expect((await createTaskStore({ root, team: team.teamName }).get('1')).status).toBe('pending');
  });

  it('the built-in Explore agent is read-only for real: its plan mode refuses a Bash command that writes', async () => {
    const cwd = await makeTempDirectory('muster-agents-explore-');
    await writeFile(path.join(cwd, 'notes.md'), 'hello\n');
    const { definitions } = await loadAgentDefinitions({ cwd, home: cwd });
    const explore = definitions.get('Explore')!;
    const pool = resolveToolPool({
      available: createBuiltInTools(),
      definition: explore,
      async: false,
      teammate: false,
    });
    expect(pool.tools.map((tool) => tool.name)).toEqual(['Bash', 'Glob', 'Grep', 'Read']);
    const context = createPermissionContext({
      mode: explore.permissionMode!,
      workingDirectories: [cwd],
      homeDirectory: cwd,
    });
    const scriptedFetch = createScriptedFetch({
      script: sequence([
        reply({
          content: [
            { type: 'tool_use', name: 'Bash', input: { command: 'cat notes.md' } },
            { type: 'tool_use', name: 'Bash', input: { command: 'touch created-by-explore' } },
          ],
        }),
        text('Read it; could not write.'),
      ]),
    });
    const agent = createAgent({
      client: createModelClient({
        apiKey: 'sk-test-0123456789abcdef',
        baseURL: 'http://scripted-model.invalid',
        retryBaseMs: 1,
        fetch: scriptedFetch,
      }),
      model: 'claude-test-model',
      identity: { name: 'explore-1', id: 'explore-1' },
      system: buildSystemPrompt({
        agentPrompt: explore.systemPrompt,
        defaultPrompt: DEFAULT_AGENT_PROMPT,
        environment: {
          cwd,
          model: 'claude-test-model',
          toolNames: pool.tools.map((tool) => tool.name),
          platform: 'linux',
          date: '2026-11-24',
        },
      }),
      tools: pool.tools,
      cwd,
      roots: () => rootsFromPermissionContext(context),
      authorize: createPermissionAuthorizer({ context: () => context }),
      environment: { PATH: process.env['PATH'] ?? '/usr/bin:/bin' },
    });
    try {
      await agent.send('What is in notes.md?').result;
    } finally {
      await agent.close();
    }
    const [read, write] = toolResults(scriptedFetch.requests()[1]!);
    expect(read!.isError).toBeFalsy();
    expect(String(read!.content)).toContain('hello');
    expect(write!.isError).toBe(true);
    expect(String(write!.content)).toMatch(/not allowed in plan mode/);
    await expect(access(path.join(cwd, 'created-by-explore'))).rejects.toThrow(/ENOENT/);
  });
});
