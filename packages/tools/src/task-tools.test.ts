import { createMailbox } from '@muster/mailbox';
import { createLeadKeyring } from '@muster/permissions';
import { parseProtocolMessage } from '@muster/protocol';
import { createTaskStore } from '@muster/tasks';
import { makeTempDirectory } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import { createTeamSession } from './team-session.js';
import {
  addTeammate,
  runTool,
  textOf,
  toolContext,
  toolFailure,
} from './team-tools-test-support.js';
import { createTeamTools } from './team-tools.js';

async function makeTeam() {
  const root = await makeTempDirectory('muster-task-tools-');
  const lead = createTeamTools({
    root,
    session: createTeamSession({ role: 'lead' }),
    mailboxOptions: createLeadKeyring().mailboxOptions(),
  });
  const context = toolContext(root);
  await runTool(lead.teamCreate, { team_name: 'crew' }, context);
  await addTeammate(root, 'crew', 'alice', root);
  const alice = createTeamTools({
    root,
    session: createTeamSession({ role: 'teammate', agentName: 'alice', teamName: 'crew' }),
  });
  return { root, lead, alice, context, mailbox: createMailbox({ root, team: 'crew' }) };
}

describe('task tools', () => {
  it('TaskCreate answers "Task #<id> created successfully: <subject>" and writes the task file', async () => {
    const team = await makeTeam();
    const result = await runTool(
      team.lead.taskCreate,
      { subject: 'Build', description: 'npm run build', activeForm: 'Building' },
      team.context,
    );
    expect(textOf(result)).toBe('Task #1 created successfully: Build');
    const second = await runTool(
      team.lead.taskCreate,
      { subject: 'Test', description: 'npm test' },
      team.context,
    );
    expect(textOf(second)).toBe('Task #2 created successfully: Test');
    const task = await createTaskStore({ root: team.root, team: 'crew' }).get('1');
    expect(task).toMatchObject({
      id: '1',
      subject: 'Build',
      description: 'npm run build',
      activeForm: 'Building',
      status: 'pending',
    });
  });

  it('TaskList: one line per task, owner in parentheses, only unfinished blockers, internal tasks hidden', async () => {
    const team = await makeTeam();
    for (const subject of ['Build', 'Test', 'Ship']) {
      await runTool(team.lead.taskCreate, { subject, description: subject }, team.context);
    }
    await createTaskStore({ root: team.root, team: 'crew' }).createInternal({
      name: 'alice',
      prompt: 'You are alice.',
    });
    await runTool(team.lead.taskUpdate, { taskId: '2', addBlockedBy: ['1'] }, team.context);
    await runTool(team.lead.taskUpdate, { taskId: '3', addBlockedBy: ['1', '2'] }, team.context);
    expect(textOf(await runTool(team.alice.taskList, {}, team.context))).toBe(
      [
        '#1 [pending] Build',
        '#2 [pending] Test [blocked by #1]',
        '#3 [pending] Ship [blocked by #1, #2]',
      ].join('\n'),
    );
    await runTool(team.alice.taskUpdate, { taskId: '1', status: 'in_progress' }, team.context);
    await runTool(team.alice.taskUpdate, { taskId: '1', status: 'completed' }, team.context);
    expect(textOf(await runTool(team.alice.taskList, {}, team.context))).toBe(
      [
        '#1 [completed] Build (alice)',
        '#2 [pending] Test',
        '#3 [pending] Ship [blocked by #2]',
      ].join('\n'),
    );
  });

  it('TaskUpdate names the fields, nudges to TaskList on completion, and tells a new owner', async () => {
    const team = await makeTeam();
    await runTool(
      team.lead.taskCreate,
      { subject: 'Build', description: 'npm run build' },
      team.context,
    );
    const assigned = await runTool(
      team.lead.taskUpdate,
      { taskId: '1', owner: 'alice@crew' },
      team.context,
    );
    expect(textOf(assigned)).toBe('Updated task #1 owner');
    // An agent id is stored as the member's name.
    expect((await createTaskStore({ root: team.root, team: 'crew' }).get('1')).owner).toBe('alice');
    const [entry] = await team.mailbox.readAll('alice');
    expect(parseProtocolMessage(entry!.text)).toMatchObject({
      type: 'task_assignment',
      taskId: '1',
      subject: 'Build',
      description: 'npm run build',
      assignedBy: 'team-lead',
    });
    const started = await runTool(
      team.alice.taskUpdate,
      { taskId: '1', status: 'in_progress', subject: 'Build it' },
      team.context,
    );
    expect(textOf(started)).toBe('Updated task #1 subject, status');
    const done = await runTool(
      team.alice.taskUpdate,
      { taskId: '1', status: 'completed' },
      team.context,
    );
    expect(textOf(done)).toMatch(/^Updated task #1 status\n\n.*TaskList/);
    const again = await runTool(
      team.alice.taskUpdate,
      { taskId: '1', status: 'completed' },
      team.context,
    );
    expect(textOf(again)).toContain('unchanged');
  });

  it('a teammate starting an unowned task becomes its owner and is told (self-claim)', async () => {
    const team = await makeTeam();
    await runTool(team.lead.taskCreate, { subject: 'Build', description: 'b' }, team.context);
    expect(
      textOf(
        await runTool(team.alice.taskUpdate, { taskId: '1', status: 'in_progress' }, team.context),
      ),
    ).toBe('Updated task #1 owner, status');
    expect(parseProtocolMessage((await team.mailbox.readAll('alice'))[0]!.text)).toMatchObject({
      type: 'task_assignment',
      assignedBy: 'alice',
    });
  });

  it('refuses an owner who is not a member, an unknown task, and changes nothing', async () => {
    const team = await makeTeam();
    await runTool(team.lead.taskCreate, { subject: 'Build', description: 'b' }, team.context);
    const stranger = await toolFailure(
      team.lead.taskUpdate,
      { taskId: '1', owner: 'mallory' },
      team.context,
    );
    expect(stranger.code).toBe('UNKNOWN_OWNER');
    expect(stranger.message).toContain('alice');
    const missing = await toolFailure(
      team.lead.taskUpdate,
      { taskId: '9', status: 'completed' },
      team.context,
    );
    expect(missing.code).toBe('TASK_NOT_FOUND');
    expect(missing.message).toContain('TaskList');
    expect((await toolFailure(team.lead.taskGet, { taskId: '9' }, team.context)).code).toBe(
      'TASK_NOT_FOUND',
    );
    const task = await createTaskStore({ root: team.root, team: 'crew' }).get('1');
    expect(task.owner).toBeUndefined();
    expect(await team.mailbox.readAll('mallory')).toEqual([]);
  });

  it('refuses path-like task ids and dependency cycles with the task package errors', async () => {
    const team = await makeTeam();
    await runTool(team.lead.taskCreate, { subject: 'A', description: 'a' }, team.context);
    await runTool(team.lead.taskCreate, { subject: 'B', description: 'b' }, team.context);
    for (const taskId of ['../../etc/passwd', '1/../2', '-1']) {
      const refused = await toolFailure(team.lead.taskGet, { taskId }, team.context);
      expect(refused.code).toBe('INVALID_TASK_ID');
    }
    await runTool(team.lead.taskUpdate, { taskId: '2', addBlockedBy: ['1'] }, team.context);
    const cycle = await toolFailure(
      team.lead.taskUpdate,
      { taskId: '2', addBlocks: ['1'] },
      team.context,
    );
    expect(cycle.code).toBe('DEPENDENCY_CYCLE');
    expect(textOf(await runTool(team.lead.taskList, {}, team.context))).toBe(
      '#1 [pending] A\n#2 [pending] B [blocked by #1]',
    );
  });

  it('TaskGet shows subject, status, owner, description and dependencies', async () => {
    const team = await makeTeam();
    await runTool(
      team.lead.taskCreate,
      { subject: 'Build', description: 'npm run build' },
      team.context,
    );
    await runTool(team.lead.taskCreate, { subject: 'Test', description: 'npm test' }, team.context);
    await runTool(
      team.lead.taskUpdate,
      { taskId: '2', addBlockedBy: ['1'], owner: 'alice' },
      team.context,
    );
    expect(textOf(await runTool(team.alice.taskGet, { taskId: '2' }, team.context))).toBe(
      [
        'Task #2: Test',
        'Status: pending',
        'Owner: alice',
        'Description: npm test',
        'Blocked by: #1',
      ].join('\n'),
    );
  });

  it('TaskUpdate status deleted removes the task; a veto from beforeComplete reaches the model', async () => {
    const root = await makeTempDirectory('muster-task-tools-');
    const lead = createTeamTools({
      root,
      session: createTeamSession({ role: 'lead' }),
      mailboxOptions: createLeadKeyring().mailboxOptions(),
      taskHooks: { beforeComplete: () => ({ allow: false, reason: 'the tests fail' }) },
    });
    const context = toolContext(root);
    await runTool(lead.teamCreate, { team_name: 'crew' }, context);
    await runTool(lead.taskCreate, { subject: 'A', description: 'a' }, context);
    await runTool(lead.taskCreate, { subject: 'B', description: 'b' }, context);
    const vetoed = await toolFailure(
      lead.taskUpdate,
      { taskId: '1', status: 'completed' },
      context,
    );
    expect(vetoed.code).toBe('COMPLETION_VETOED');
    expect(vetoed.message).toContain('the tests fail');
    expect(
      textOf(await runTool(lead.taskUpdate, { taskId: '2', status: 'deleted' }, context)),
    ).toBe('Updated task #2 deleted');
    expect(textOf(await runTool(lead.taskList, {}, context))).toBe('#1 [pending] A');
  });

  it('needs a task list: a lead outside a team is told to create one, unless it has its own list', async () => {
    const root = await makeTempDirectory('muster-task-tools-');
    const tools = createTeamTools({
      root,
      session: createTeamSession({ role: 'lead' }),
      mailboxOptions: createLeadKeyring().mailboxOptions(),
    });
    const refused = await toolFailure(
      tools.taskCreate,
      { subject: 'A', description: 'a' },
      toolContext(root),
    );
    expect(refused.code).toBe('NO_TASK_LIST');
    expect(refused.message).toContain('TeamCreate');
    const solo = createTeamTools({
      root,
      session: createTeamSession({ role: 'lead', taskListName: 'session-1234' }),
      mailboxOptions: createLeadKeyring().mailboxOptions(),
    });
    expect(
      textOf(await runTool(solo.taskCreate, { subject: 'A', description: 'a' }, toolContext(root))),
    ).toBe('Task #1 created successfully: A');
    // No team: an owner is not checked against members and nobody is messaged.
    expect(
      textOf(await runTool(solo.taskUpdate, { taskId: '1', owner: 'someone' }, toolContext(root))),
    ).toBe('Updated task #1 owner');
  });
});
