import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createMailbox } from '@muster/mailbox';
import {
  createPermissionRequestId,
  createPlanApprovalRequestId,
  type ProtocolMessage,
} from '@muster/protocol';
import { buildTaskAssignment, createTaskStore } from '@muster/tasks';
import { addMember, createTeam } from '@muster/teams';
import { CliError } from '../cli-error.js';
import { printJson, printLine, type CommandContext } from '../context.js';
import type { HeadlessFlags } from '../run/headless-flags.js';
import { quoteShellArgument } from '../printed-command.js';
import { paint, symbol } from '../terminal-style.js';

const MODEL = 'claude-opus-4-6';

/** Builds the demo team in `root`; returns its name and what it holds. */
export async function createDemoTeam(root: string, cwd: string) {
  const created = await createTeam({
    root,
    name: 'demo',
    description: 'A demo team made by muster demo',
    leadModel: MODEL,
    cwd,
  });
  const team = created.teamName;
  const member = (name: string, prompt: string, planModeRequired = false) =>
    addMember(root, team, {
      name,
      agentType: 'general-purpose',
      model: MODEL,
      prompt,
      planModeRequired,
      cwd,
      backendType: 'in-process',
      tmuxPaneId: 'in-process',
    });
  await member('alpha', 'You are alpha. Build the greeting module (task 1).');
  await member('beta', 'You are beta. Plan and write the tests for the greeting module.', true);
  await member('gamma', 'You are gamma. Set up continuous integration.');

  const tasks = createTaskStore({ root, team });
  const write = await tasks.create({
    subject: 'Write the greeting module',
    description: 'Implement greet(name) in src/greet.js.',
    activeForm: 'Writing the greeting module',
  });
  const test = await tasks.create({
    subject: 'Test the greeting module',
    description: 'Unit tests for greet(name), including the empty name.',
    activeForm: 'Testing the greeting module',
  });
  const document = await tasks.create({
    subject: 'Document the greeting module',
    description: 'A README section with an example.',
    activeForm: 'Documenting the greeting module',
  });
  const ci = await tasks.create({
    subject: 'Set up CI',
    description: 'Run npm test on every push.',
    activeForm: 'Setting up CI',
  });
  await tasks.addDependency(write.id, test.id);
  await tasks.addDependency(test.id, document.id);

  const mailbox = createMailbox({ root, team });
  const now = () => new Date().toISOString();
  const protocol = (to: string, from: string, message: ProtocolMessage) =>
    mailbox.sendProtocolMessage(to, from, message);
  let sent = 0;
  const count = async (promise: Promise<unknown>, messages = 1) => {
    await promise;
    sent += messages;
  };

  await count(
    mailbox.send('alpha', {
      from: 'team-lead',
      text: 'Please start with task #1, the greeting module. Beta tests it once you are done.',
      summary: 'Start with task 1',
    }),
  );
  const claimed = await tasks.claim(write.id, 'alpha');
  if (claimed.success)
    await count(protocol('alpha', 'alpha', buildTaskAssignment(claimed.task, 'alpha')));
  await count(
    mailbox.send('team-lead', {
      from: 'alpha',
      text: 'On it: greet() first, then I hand over to beta.',
      summary: 'Alpha started task 1',
    }),
  );
  const firstPlan = createPlanApprovalRequestId('beta', team);
  await count(
    protocol('team-lead', 'beta', {
      type: 'plan_approval_request',
      from: 'beta',
      timestamp: now(),
      planFilePath: path.join(cwd, '.plans', 'beta-task-2.md'),
      planContent: '# Plan for task 2\n\n1. Test greet("Ada").\n2. Run npm test.\n',
      requestId: firstPlan,
    }),
  );
  await count(
    protocol('beta', 'team-lead', {
      type: 'plan_approval_response',
      requestId: firstPlan,
      approved: false,
      feedback: 'Please also cover the empty-name case.',
      timestamp: now(),
    }),
  );
  const ciClaim = await tasks.claim(ci.id, 'gamma');
  if (ciClaim.success)
    await count(protocol('gamma', 'gamma', buildTaskAssignment(ciClaim.task, 'gamma')));
  const permission = createPermissionRequestId();
  await count(
    protocol('team-lead', 'gamma', {
      type: 'permission_request',
      request_id: permission,
      agent_id: 'gamma',
      tool_name: 'Bash',
      tool_use_id: 'toolu_demo_1',
      description: 'Run the test suite',
      input: { command: 'npm test' },
      permission_suggestions: [],
    }),
  );
  await count(
    protocol('gamma', 'team-lead', {
      type: 'permission_response',
      request_id: permission,
      subtype: 'success',
      response: { updated_input: { command: 'npm test' }, permission_updates: [] },
    }),
  );
  await count(
    protocol('team-lead', 'beta', {
      type: 'plan_approval_request',
      from: 'beta',
      timestamp: now(),
      planFilePath: path.join(cwd, '.plans', 'beta-task-2.md'),
      planContent:
        '# Plan for task 2 (revised)\n\n1. Test greet("Ada") and greet("").\n2. Run npm test.\n',
      requestId: createPlanApprovalRequestId('beta', team),
    }),
  );
  const broadcast = await mailbox.broadcast('team-lead', {
    text: 'Stand-up in five minutes: one line each on where you are.',
    summary: 'Stand-up in five minutes',
  });
  sent += broadcast.recipients.length;
  await tasks.update(ci.id, { status: 'completed' }, { agent: 'gamma' });
  await count(
    mailbox.send('team-lead', {
      from: 'gamma',
      text: 'CI is set up: npm test runs on every push and passes.',
      summary: 'CI is set up',
    }),
  );
  await count(
    protocol('team-lead', 'gamma', {
      type: 'idle_notification',
      from: 'gamma',
      timestamp: now(),
      idleReason: 'available',
      completedTaskId: ci.id,
      completedStatus: 'success',
    }),
  );
  return { team, members: ['team-lead', 'alpha', 'beta', 'gamma'], tasks: 4, messages: sent };
}

/**
 * `muster demo [--root DIR] [--watch]`. Without `--root` the demo goes into a new temporary
 * folder: kept and named (with how to remove it) when the command only creates the team,
 * removed again when `--watch` ends, since nothing else refers to it then.
 */
export async function demoCommand(
  context: CommandContext,
  options: { watch?: boolean; run?: boolean } & HeadlessFlags,
): Promise<number | void> {
  if (options.run === true) {
    if (options.watch === true) {
      throw new CliError({
        code: 'USAGE',
        message: '--watch does not go with --run: the run prints its own output. Leave one out.',
        details: { option: '--watch' },
      });
    }
    return (await import('./demo-run.js')).demoRun(context, options);
  }
  if (options.print === true) {
    throw new CliError({
      code: 'USAGE',
      message: '-p goes with --run: muster demo --run -p runs the scripted demo team headless.',
      details: { option: '-p' },
    });
  }
  const temporary = context.rootSource !== 'option';
  const root = temporary ? await mkdtemp(path.join(tmpdir(), 'muster-demo-')) : context.root;
  const demo = await createDemoTeam(root, root);
  const watching = options.watch === true && !context.json;
  if (context.json) {
    printJson(context, { root, temporary, ...demo });
  } else {
    const { style } = context;
    const rootFlag = `--root ${quoteShellArgument(root)}`;
    printLine(
      context,
      `${paint(style, 'green', symbol(style, 'ok'))} Created the demo team ${paint(style, 'bold', demo.team)} in ${root}`,
    );
    printLine(
      context,
      `  ${demo.members.join(', ')} ${symbol(style, 'separator')} ${demo.tasks} tasks ${symbol(style, 'separator')} ${demo.messages} messages`,
    );
    if (temporary) {
      printLine(
        context,
        watching
          ? `  ${root} is a temporary folder: it is removed when you quit. To keep a demo, pass --root DIR.`
          : `  ${root} is a temporary folder muster made for this demo; remove it when you are done: rm -rf ${quoteShellArgument(root)}`,
      );
    }
    printLine(context, '');
    printLine(context, `Watch it:  muster watch ${rootFlag}`);
    printLine(context, `Poke it:   muster send alpha "How is task 1 going?" ${rootFlag}`);
    printLine(context, `           muster tasks done 1 --from alpha ${rootFlag}`);
    printLine(context, `Check it:  muster doctor ${rootFlag}`);
  }
  if (!watching) return;
  try {
    const { watchCommand } = await import('./watch-command.js');
    await watchCommand(
      { ...context, root, requestedTeam: demo.team, requestedTeamSource: '--team' },
      undefined,
      {},
    );
  } finally {
    if (temporary) {
      await rm(root, { recursive: true, force: true });
      printLine(context, `Removed the temporary demo folder ${root}.`);
    }
  }
}
