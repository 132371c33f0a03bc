// The whole demo team, run against a simulated Claude Code 2.1.45 runtime that executes the
// script's tool calls for real on a throwaway repository: the lead's, alice's and bob's flows
// end to end, the permission ask, the plan rejected once then approved, and the shutdown.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TOOL_INPUT_SCHEMAS } from '@muster/protocol';
import { DEMO_TEAM_PROMPT, DEMO_TEAM_REPOSITORY, PLAN_FEEDBACK } from './demo-team-content.js';
import { simulateTeam } from './demo-team-runtime-test-support.js';
import { runCommand, writeRepository } from './demo-team-test-support.js';
import { demoTeamScript } from './demo-team.js';

let folder: string;
let repository: string;
let home: string;

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'demo-team-'));
  repository = join(folder, 'repo');
  home = join(folder, 'home', '.claude');
  await writeRepository(repository, DEMO_TEAM_REPOSITORY);
});

afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

function callsOf(events: string[], agent: string): string[] {
  return events
    .filter((event) => event.startsWith(`${agent}: `))
    .map((event) => event.slice(agent.length + 2).split(' ')[0] ?? '');
}

describe('demo-team played as a whole team', () => {
  it('adds slugify with tests and docs, and every tool input fits Claude Code 2.1.45', async () => {
    const record = await simulateTeam(demoTeamScript, {
      repository,
      home,
      prompt: DEMO_TEAM_PROMPT,
    });
    expect(record.stoppedBecause).toBe('quiet');
    expect(record.schemaProblems).toEqual([]);

    // The files are real and the repository's tests pass.
    expect(await readFile(join(repository, 'src/index.js'), 'utf8')).toBe(
      "export { capitalize } from './capitalize.js';\nexport { slugify } from './slugify.js';\n",
    );
    expect(await readFile(join(repository, 'README.md'), 'utf8')).toContain('`slugify(text)`');
    const [output, failed] = runCommand('node --test', repository);
    expect(failed, output).toBe(false);
    expect(output).toMatch(/# pass 4/);

    // The lead: team, four tasks, three dependencies, three spawns, plan answers, task checks,
    // three shutdown requests, delete.
    expect(callsOf(record.events, 'team-lead').filter((name) => name !== 'text')).toEqual([
      'TeamCreate',
      'TaskCreate',
      'TaskCreate',
      'TaskCreate',
      'TaskCreate',
      'TaskUpdate',
      'TaskUpdate',
      'TaskUpdate',
      'Task',
      'Task',
      'Task',
      ...callsOf(record.events, 'team-lead')
        .filter((name) => name === 'SendMessage' || name === 'TaskList')
        .slice(0, -3),
      'SendMessage',
      'SendMessage',
      'SendMessage',
      'TeamDelete',
    ]);
    expect(record.teamDeleted).toBe(true);
    expect(
      record.tasks
        .filter((task) => !task.internal)
        .map((task) => [task.subject, task.status, task.owner]),
    ).toEqual([
      ['Implement slugify()', 'completed', 'alice'],
      ['Write tests for slugify()', 'completed', 'bob'],
      ['Document slugify() in README.md', 'completed', 'bob'],
      ['Review slugify()', 'completed', 'carol'],
    ]);
    expect(
      record.tasks.find((task) => task.subject === 'Write tests for slugify()')?.blockedBy,
    ).toEqual(['1']);

    // alice: claim, read, write, edit, npm test (a permission ask), complete, message bob, carol
    // and the lead, approve the shutdown.
    expect(callsOf(record.events, 'alice').filter((name) => name !== 'text')).toEqual([
      'TaskUpdate',
      'Read',
      'Write',
      'Edit',
      'Bash',
      'TaskUpdate',
      'SendMessage',
      'SendMessage',
      'SendMessage',
      'SendMessage',
    ]);
    // carol: waits for alice, claims the review, reads, completes, reports, approves the shutdown.
    expect(callsOf(record.events, 'carol').filter((name) => name !== 'text')).toEqual([
      'TaskUpdate',
      'Read',
      'TaskUpdate',
      'SendMessage',
      'SendMessage',
    ]);
    expect(record.permissionAsks).toContainEqual({
      agent: 'alice',
      command: 'npm test',
      allowed: true,
    });

    // bob: plan (rejected once with the lead's feedback, then approved), then tests and docs.
    expect(record.planResponses).toEqual([
      { recipient: 'bob', approve: false, feedback: PLAN_FEEDBACK },
      { recipient: 'bob', approve: true },
    ]);
    expect(callsOf(record.events, 'bob').filter((name) => name !== 'text')).toEqual([
      'Read',
      'Write',
      'ExitPlanMode',
      'Write',
      'ExitPlanMode',
      'TaskUpdate',
      'Read',
      'Write',
      'Bash',
      'TaskUpdate',
      'TaskUpdate',
      'Read',
      'Edit',
      'TaskUpdate',
      'SendMessage',
      'SendMessage',
    ]);
    const plan = await readFile(join(home, 'plans', 'quiet-river-agent-bob.md'), 'utf8');
    expect(plan).toContain('(revised)');

    // Team tool inputs also pass muster's own schemas (with their extra rules).
    const schemas = TOOL_INPUT_SCHEMAS as Record<
      string,
      { safeParse(value: unknown): { success: boolean; error?: unknown } }
    >;
    for (const event of record.events) {
      const [agent, name, ...rest] = event.split(' ');
      const schema = name === undefined ? undefined : schemas[name];
      if (schema === undefined) continue;
      const result = schema.safeParse(JSON.parse(rest.join(' ')));
      expect(result.success, `${agent} ${name}: ${String(result.error)}`).toBe(true);
    }
  });

  it('goes on when the permission for npm test is denied, and says so to bob and the lead', async () => {
    const record = await simulateTeam(demoTeamScript, {
      repository,
      home,
      prompt: DEMO_TEAM_PROMPT,
      allowBash: (agent) => agent !== 'alice',
    });
    expect(record.permissionAsks).toContainEqual({
      agent: 'alice',
      command: 'npm test',
      allowed: false,
    });
    const toLead = record.events.find(
      (event) =>
        event.startsWith('alice: SendMessage') && event.includes('"recipient":"team-lead"'),
    );
    expect(toLead).toContain('I was not allowed to run npm test');
    expect(record.teamDeleted).toBe(true);
    expect(record.schemaProblems).toEqual([]);
  });

  it('is bounded: a run that never goes quiet stops at maxTurns', async () => {
    const record = await simulateTeam(demoTeamScript, {
      repository,
      home,
      prompt: DEMO_TEAM_PROMPT,
      maxTurns: 5,
    });
    expect(record.stoppedBecause).toBe('max-turns');
    expect(record.requests).toHaveLength(5);
  });
});
