import type { AnyTool } from '@muster/query';
import { makeTempDirectory } from '@muster/test-utils';
import { createBuiltInTools, createTeamSession, createTeamTools } from '@muster/tools';
import { describe, expect, it } from 'vitest';
import type { AgentDefinition } from './agent-definition.js';
import { BUILT_IN_AGENTS } from './built-in-agents.js';
import {
  ALL_AGENT_DISALLOWED_TOOLS,
  ASYNC_AGENT_ALLOWED_TOOLS,
  resolveToolPool,
  TEAM_ESSENTIAL_TOOLS,
} from './tool-pool.js';

// Tools muster has no implementation of in this package's dependencies (the lead-only ones):
// the pool only reads names, so a named stand-in is enough for them. Everything else is real.
function standIn(name: string): AnyTool {
  return { name } as unknown as AnyTool;
}

async function teamTools(): Promise<AnyTool[]> {
  const root = await makeTempDirectory('muster-agents-tool-pool-');
  const session = createTeamSession({ role: 'teammate', agentName: 'alice', teamName: 'red' });
  return createTeamTools({ root, session }).all;
}

const custom = (fields: Partial<AgentDefinition>): AgentDefinition => ({
  name: 'reviewer',
  description: 'Reviews',
  systemPrompt: 'Review.',
  source: 'project',
  ...fields,
});

const generalPurpose = BUILT_IN_AGENTS[0]!;
const names = (tools: readonly AnyTool[]) => tools.map((tool) => tool.name);

describe('resolveToolPool', () => {
  it('removes the lead-only tools from a subagent and keeps the order', async () => {
    const available = [
      standIn('Task'),
      ...createBuiltInTools(),
      standIn('TaskOutput'),
      standIn('AskUserQuestion'),
      ...(await teamTools()),
      standIn('mcp__docs__search'),
    ];
    const pool = resolveToolPool({
      available,
      definition: generalPurpose,
      async: false,
      teammate: false,
    });
    expect(names(pool.tools)).toEqual([
      'Bash',
      'Glob',
      'Grep',
      'Read',
      'Edit',
      'Write',
      'TeamCreate',
      'TeamDelete',
      'SendMessage',
      'TaskCreate',
      'TaskGet',
      'TaskUpdate',
      'TaskList',
      'mcp__docs__search',
    ]);
    expect(pool.removed).toEqual([
      { name: 'Task', reason: 'not offered to subagents' },
      { name: 'TaskOutput', reason: 'not offered to subagents' },
      { name: 'AskUserQuestion', reason: 'not offered to subagents' },
    ]);
    expect(ALL_AGENT_DISALLOWED_TOOLS).toContain('Agent');
  });

  it('applies the custom, async, allow and deny layers in order, each with its reason', async () => {
    const available = [
      ...createBuiltInTools(),
      ...(await teamTools()),
      standIn('mcp__docs__search'),
    ];
    const definition = custom({
      tools: ['Read', 'Grep', 'Bash', 'TeamCreate', 'SendMessage', 'mcp__docs__search'],
      disallowedTools: ['Bash'],
    });
    const pool = resolveToolPool({ available, definition, async: true, teammate: false });
    expect(names(pool.tools)).toEqual(['Grep', 'Read', 'mcp__docs__search']);
    const reasonOf = (name: string) => pool.removed.find((entry) => entry.name === name)?.reason;
    expect(reasonOf('TeamCreate')).toBe('not offered to agents defined outside muster (reviewer)');
    expect(reasonOf('SendMessage')).toBe('not offered to background agents');
    expect(reasonOf('TaskList')).toBe('not offered to background agents');
    expect(reasonOf('Glob')).toBe('not in the tools of reviewer');
    expect(reasonOf('Bash')).toBe('in the disallowedTools of reviewer');
    expect(ASYNC_AGENT_ALLOWED_TOOLS).toContain('Bash');
    // Not async: the allow list decides, and the tool order is the pool's, not the list's.
    const foreground = resolveToolPool({ available, definition, async: false, teammate: false });
    expect(names(foreground.tools)).toEqual(['Grep', 'Read', 'SendMessage', 'mcp__docs__search']);
    expect(foreground.notices).toEqual([]);
  });

  it('injects the team-essential tools into a teammate whatever its definition says', async () => {
    const team = await teamTools();
    const available = [
      standIn('ExitPlanMode'),
      standIn('AskUserQuestion'),
      ...createBuiltInTools(),
      standIn('Task'),
    ];
    const definition = custom({ tools: ['Read'], disallowedTools: ['SendMessage'] });
    const pool = resolveToolPool({
      available,
      definition,
      async: true,
      teammate: true,
      teamTools: team,
    });
    expect(names(pool.tools)).toEqual([
      'Read',
      'TeamCreate',
      'TeamDelete',
      'SendMessage',
      'TaskCreate',
      'TaskGet',
      'TaskUpdate',
      'TaskList',
    ]);
    expect(TEAM_ESSENTIAL_TOOLS).toHaveLength(7);
    expect(pool.notices).toEqual([]);
    // A teammate keeps ExitPlanMode and Task (the async layer does not apply to it) when its
    // definition allows everything; AskUserQuestion is still gone.
    const open = resolveToolPool({
      available,
      definition: generalPurpose,
      async: false,
      teammate: true,
      teamTools: team,
    });
    expect(names(open.tools).slice(0, 8)).toEqual([
      'ExitPlanMode',
      'Bash',
      'Glob',
      'Grep',
      'Read',
      'Edit',
      'Write',
      'Task',
    ]);
    expect(open.removed).toEqual([{ name: 'AskUserQuestion', reason: 'not offered to teammates' }]);
    // Injected tools already in the pool are not duplicated, and come back where they were.
    const inPool = resolveToolPool({
      available: [...team, ...createBuiltInTools()],
      definition,
      async: false,
      teammate: true,
    });
    expect(names(inPool.tools)).toEqual([
      'TeamCreate',
      'TeamDelete',
      'SendMessage',
      'TaskCreate',
      'TaskGet',
      'TaskUpdate',
      'TaskList',
      'Read',
    ]);
    expect(inPool.removed.map((entry) => entry.name)).toEqual([
      'Bash',
      'Glob',
      'Grep',
      'Edit',
      'Write',
    ]);
  });

  it('reports unknown names and permission-rule entries as notices, not errors', () => {
    const available = createBuiltInTools();
    const definition = custom({
      tools: ['Read', 'Bash(git log:*)', 'WebSearch', 'Agent'],
      disallowedTools: ['Nope'],
    });
    const pool = resolveToolPool({ available, definition, async: false, teammate: false });
    expect(names(pool.tools)).toEqual(['Bash', 'Read']);
    expect(pool.notices).toEqual([
      expect.stringMatching(
        /^reviewer: "Bash\(git log:\*\)" in tools counts as the whole Bash tool/,
      ),
      expect.stringMatching(
        /^reviewer: "WebSearch" in tools is not a tool this session offers; it is ignored \(offered: Bash, /,
      ),
      expect.stringMatching(/^reviewer: "Agent" in tools is not a tool/),
      expect.stringMatching(/^reviewer: "Nope" in disallowedTools is not a tool/),
    ]);
    const teammate = resolveToolPool({
      available,
      definition: generalPurpose,
      async: false,
      teammate: true,
    });
    expect(teammate.notices[0]).toMatch(
      /the teammate has no SendMessage tool: pass it in teamTools/,
    );
  });

  it('treats Task and Agent as one name in a definition', () => {
    const available = [standIn('Agent'), ...createBuiltInTools()];
    const definition = custom({ tools: ['Task', 'Read'] });
    const pool = resolveToolPool({ available, definition, async: false, teammate: true });
    expect(names(pool.tools).slice(0, 2)).toEqual(['Agent', 'Read']);
  });

  it('refuses malformed options with a message saying what to pass', () => {
    const available = createBuiltInTools();
    expect(() =>
      resolveToolPool({
        available: [...available, available[0]!],
        definition: generalPurpose,
        async: false,
        teammate: false,
      }),
    ).toThrow(/two tools named "Bash"/);
    expect(() =>
      resolveToolPool({
        available,
        definition: { name: 'x' } as AgentDefinition,
        async: 'yes' as unknown as boolean,
        teammate: false,
      }),
    ).toThrow(/`async` and `teammate` must be true or false/);
    expect(() =>
      resolveToolPool({
        available,
        definition: custom({ tools: 'Read' as unknown as string[] }),
        async: false,
        teammate: false,
      }),
    ).toThrow(/definition.tools of reviewer must be a list/);
  });
});
