// The teammate path through the spawn tool on the in-process backend: a real team on disk, the
// lead's signed mailbox, A3's teammate loop as the member's body, and a model that is
// @muster/scripted-model (a TEST DOUBLE of the Messages API) behind the real SDK.
import { execFileSync } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { createInProcessBackend, createMemberMonitor } from '@muster/backends';
import { readTeam } from '@muster/teams';
import { makeTempDirectory } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import { BUILT_IN_AGENTS } from './built-in-agents.js';
import { PROCESS_TEAMMATE_ENTRY } from './process-teammate-command.js';
import { worktreeIsolation } from './spawn-tool-worktree.js';
import { runTeammate } from './teammate.js';
import { formatSpawnResult, teammateCommand, teammateSpawnHandler } from './teammate-spawn.js';
import { createTeammateFixture, lastUserText, scriptedClient } from './teammate-test-support.js';
import {
  afterToolResult,
  isParentRequest,
  openSpawnParent,
  say,
  toolEnd,
  use,
} from './spawn-tool-test-support.js';
import type { TeamEvent } from './team-event.js';

async function until<Value>(
  check: () => Promise<Value | undefined> | Value | undefined,
  what: string,
): Promise<Value> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('teammate spawn (in-process backend)', () => {
  it('registers a unique name, writes the prompt as its first inbox message, runs the loop and answers as FORMAT.md shows', async () => {
    const fixture = await createTeammateFixture();
    const backend = createInProcessBackend({ processReaper: false });
    const teammateModel = scriptedClient((request) =>
      lastUserText(request).includes('Count the files')
        ? say('I counted them.')
        : say('Nothing to do.'),
    );
    const events: TeamEvent[] = [];
    const handler = teammateSpawnHandler({
      root: fixture.root,
      teamName: fixture.teamName,
      cwd: fixture.cwd,
      mailbox: fixture.lead,
      parentModel: 'claude-test-model',
      backend: { requested: 'in-process', backends: [backend], environment: {} },
      onEvent: (event) => events.push(event),
      runInProcess: (context, member) =>
        runTeammate({
          root: fixture.root,
          teamName: fixture.teamName,
          agentName: member.agentName,
          agentId: member.agentId,
          color: member.color,
          cwd: context.cwd,
          client: teammateModel.client,
          model: member.model,
          systemPrompt: `You are ${member.agentName}. (Scripted test.)`,
          tools: [],
          leadTrust: { ledger: fixture.keyring.ledger },
          signal: context.signal,
          onReady: () => context.ready(),
          backendType: 'in-process',
          // The lead run marker lets the process reaper end the member's tools if the lead dies.
          environment: { PATH: '/usr/bin:/bin', ...(context.environment ?? {}) },
          homeDirectory: fixture.cwd,
        }).then(() => undefined),
    });
    const parent = openSpawnParent({
      cwd: fixture.cwd,
      spawn: { spawnTeammate: handler },
      script: (request) =>
        isParentRequest(request) && afterToolResult(request)
          ? say('Spawned.')
          : use('Task', {
              description: 'Count files',
              prompt: 'Count the files in the project.',
              subagent_type: 'general-purpose',
              name: 'alice',
              team_name: fixture.teamName,
            }),
    });
    try {
      const end = toolEnd((await parent.run('go')).events, 'Task');
      expect(end.isError).toBe(false);
      // "alice" is taken in the fixture's team: the new member gets a suffix.
      expect(end.resultText).toBe(
        formatSpawnResult('2.1.45', {
          agentId: `alice-2@${fixture.teamName}`,
          name: 'alice-2',
          teamName: fixture.teamName,
        }),
      );
      expect(end.resultText).toMatch(
        /^Spawned successfully\.\nagent_id: alice-2@crew\nname: alice-2\nteam_name: crew\n/,
      );
      const config = await readTeam(fixture.root, fixture.teamName);
      const member = config.members.find((entry) => entry.name === 'alice-2')!;
      expect(member).toMatchObject({
        agentType: 'general-purpose',
        backendType: 'in-process',
        tmuxPaneId: 'in-process',
        model: 'claude-test-model',
      });
      expect(member.color).toBeTruthy();
      const inbox = await fixture.lead.readAll('alice-2');
      expect(inbox[0]).toMatchObject({
        from: 'team-lead',
        text: 'Count the files in the project.',
        summary: 'Count files',
      });
      // The teammate's loop read it and worked on it.
      const request = await until(
        () =>
          teammateModel.scriptedFetch
            .requests()
            .find((entry) => lastUserText(entry).includes('Count the files')),
        'the teammate’s first request',
      );
      expect(lastUserText(request)).toContain('teammate_id="team-lead"');
      expect(events.find((event) => event.type === 'spawn')).toMatchObject({
        path: 'teammate',
        agentName: 'alice-2',
        backendType: 'in-process',
        parentName: 'team-lead',
      });
    } finally {
      await parent.close();
      await backend.close();
      teammateModel.scriptedFetch.stop();
    }
    await until(() => events.find((event) => event.type === 'spawn_end'), 'spawn_end');
  });

  it('refuses a team the lead does not lead, without touching the config', async () => {
    const fixture = await createTeammateFixture();
    const handler = teammateSpawnHandler({
      root: fixture.root,
      teamName: fixture.teamName,
      cwd: fixture.cwd,
      mailbox: fixture.lead,
      parentModel: 'claude-test-model',
      backend: { requested: 'in-process', backends: [], environment: {} },
    });
    const result = await handler({
      name: 'x',
      teamName: 'other',
      prompt: 'p',
      description: 'd',
      definition: BUILT_IN_AGENTS[0]!,
    });
    expect(result).toMatchObject({
      isError: true,
      content: expect.stringContaining('team_name "crew"'),
    });
    expect(
      (await readTeam(fixture.root, fixture.teamName)).members.map((entry) => entry.name),
    ).not.toContain('x');
  });

  it('builds the process teammate’s command with Claude Code’s flag names and the lead verify key by default', () => {
    const info = {
      agentName: 'bob',
      agentId: 'bob@crew',
      color: 'green',
      model: 'claude-test-model',
      cwd: '/tmp',
      prompt: 'p',
      definition: BUILT_IN_AGENTS[0]!,
      planModeRequired: true,
      leadSessionId: 'a68f0c01-7469-46a4-a245-0aa0886e83a5',
    };
    const command = teammateCommand(undefined, info, 'crew', ['--lead-verify-key', 'key-1']);
    expect(command.file).toBe(process.execPath);
    expect(command.args.slice(0, 9)).toEqual([
      PROCESS_TEAMMATE_ENTRY,
      '--agent-id',
      'bob@crew',
      '--agent-name',
      'bob',
      '--team-name',
      'crew',
      '--agent-color',
      'green',
    ]);
    expect(command.args).toContain('--plan-mode-required');
    expect(command.args.join(' ')).toContain(
      '--agent-type general-purpose --model claude-test-model --lead-verify-key key-1',
    );
    expect(PROCESS_TEAMMATE_ENTRY.endsWith(path.join('agents', 'dist', 'teammate-main.js'))).toBe(
      true,
    );
    const node = teammateCommand({ file: '/opt/cc/cli.js' }, info, 'crew');
    expect(node.file).toBe(process.execPath);
    expect(node.args.slice(0, 3)).toEqual(['/opt/cc/cli.js', '--agent-id', 'bob@crew']);
  });
});

describe('teammate spawn with isolation: worktree', () => {
  it('runs the teammate in its own worktree, recorded in the config, watched by the member monitor, removed when it ends clean', async () => {
    const fixture = await createTeammateFixture();
    const repo = realpathSync(await makeTempDirectory('muster-teammate-repo-'));
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, stdio: 'pipe' });
    git('init', '-q', '-b', 'main');
    git(
      '-c',
      'user.email=t@example.invalid',
      '-c',
      'user.name=T',
      'commit',
      '-q',
      '--allow-empty',
      '-m',
      'initial',
    );
    const backend = createInProcessBackend({ processReaper: false });
    const cwds: string[] = [];
    const events: TeamEvent[] = [];
    const gone: string[] = [];
    const monitor = createMemberMonitor({
      root: fixture.root,
      teamName: fixture.teamName,
      onMemberGone: (event) => gone.push(JSON.stringify(event)),
    });
    const handler = teammateSpawnHandler({
      root: fixture.root,
      teamName: fixture.teamName,
      cwd: repo,
      mailbox: fixture.lead,
      parentModel: 'claude-test-model',
      backend: { requested: 'in-process', backends: [backend], environment: {} },
      createWorktree: worktreeIsolation(),
      monitor,
      onEvent: (event) => events.push(event),
      runInProcess: async (context) => {
        cwds.push(context.cwd);
        context.ready();
        await new Promise((resolve) =>
          context.signal.addEventListener('abort', resolve, { once: true }),
        );
      },
    });
    try {
      const result = await handler({
        name: 'dave',
        teamName: fixture.teamName,
        prompt: 'Work alone.',
        description: 'Isolated',
        definition: BUILT_IN_AGENTS[0]!,
        isolation: 'worktree',
      });
      expect(result.isError).toBeUndefined();
      const member = (await readTeam(fixture.root, fixture.teamName)).members.find(
        (entry) => entry.name === 'dave',
      )!;
      expect(
        member.cwd.startsWith(path.join(repo, '.muster', 'worktrees', 'agents', 'teammate-dave-')),
      ).toBe(true);
      expect(member.worktreePath).toBe(member.cwd);
      await until(() => cwds[0], 'the member to start');
      expect(cwds[0]).toBe(member.cwd);
      expect(existsSync(member.cwd)).toBe(true);
      // The member monitor watches it.
      await until(
        () => (monitor.watching().includes('dave@crew') ? true : undefined),
        'the monitor to watch dave',
      );
    } finally {
      await backend.close();
    }
    await until(
      () => (gone.some((event) => event.includes('dave@crew')) ? true : undefined),
      'the monitor to see dave gone',
    );
    await monitor.close();
    await until(
      () => (existsSync(cwds[0]!) ? undefined : true),
      'the clean worktree to be removed',
    );
    expect(events.filter((event) => event.type === 'notice' && event.level === 'warning')).toEqual(
      [],
    );
  });
});
