// A lead process: answers permission requests and plans from its real inbox following a
// policy given as JSON. First prints `{"ready":true,"launch":{worker:[…arguments]}}`: the
// command-line arguments (its lead verify key) each member of the team is started with.
// Then one JSON line per answer, then `{"done":true,…}`.
import { createMailbox } from '@muster/mailbox';
import { readTeam } from '@muster/teams';
import {
  createAuditLog,
  createLeadKeyring,
  createMailboxMessenger,
  createPermissionBroker,
  createPermissionContext,
  serveInbox,
} from '../../dist/index.js';

const policy = JSON.parse(process.argv[2]);
const { root, team } = policy;
const print = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);

// Keys live in this process only; the workers get the public halves on their command line.
const keyring = createLeadKeyring();
const launch = Object.fromEntries(
  (await readTeam(root, team)).members
    .filter((member) => member.name !== 'team-lead')
    .map((member) => [member.name, keyring.createMemberKey(member.name).launchArguments]),
);
const mailbox = createMailbox({ root, team, ...keyring.mailboxOptions() });
const broker = createPermissionBroker({
  messenger: createMailboxMessenger({ mailbox, agentName: 'team-lead' }),
  teamName: team,
  root,
  audit: createAuditLog({ root, team }),
  leadContext: createPermissionContext({
    mode: policy.leadMode ?? 'default',
    workingDirectories: [policy.cwd],
    homeDirectory: policy.home,
  }),
});
const server = serveInbox({
  mailbox,
  agentName: 'team-lead',
  handlers: [broker.handleMessage],
  pollIntervalMs: 100,
});
print({ ready: true, launch });

const matches = (match, request) =>
  (match.worker === undefined || match.worker === request.workerName) &&
  (match.path === undefined || String(request.input.file_path ?? '').includes(match.path));

// Permission requests: wait for all of them, then answer in the policy's order.
const expected = policy.expectPermissions ?? 0;
while (broker.pendingPermissions().length < expected) {
  await new Promise((resolve) => setTimeout(resolve, 20));
}
let requests = broker.pendingPermissions();
if (policy.order === 'reverse') requests = [...requests].reverse();
for (const request of requests) {
  const answer = policy.answers.find((candidate) => matches(candidate.match ?? {}, request));
  if (answer.action === 'deny') {
    await broker.deny(request.requestId, answer.message);
  } else {
    const result = await broker.approve(request.requestId, answer.options ?? {});
    if (result.teamAllowedPath) print({ teamAllowedPath: result.teamAllowedPath });
  }
  print({
    answered: request.requestId,
    worker: request.workerName,
    color: request.workerColor,
    via: request.via,
    action: answer.action,
    path: request.input.file_path,
  });
}

// Plans: answer each as it arrives, in the policy's sequence.
for (const planAnswer of policy.planAnswers ?? []) {
  const plan = await broker.nextPlanRequest();
  for (const refused of planAnswer.tryFirst ?? []) {
    try {
      await broker.approvePlan(plan.requestId, { permissionMode: refused });
      print({ unexpectedlyApproved: refused });
    } catch (error) {
      print({ refused, code: error.code, message: error.message });
    }
  }
  if (planAnswer.action === 'approve') {
    await broker.approvePlan(plan.requestId, { permissionMode: planAnswer.mode });
  } else {
    await broker.rejectPlan(plan.requestId, planAnswer.feedback);
  }
  print({ plan: plan.requestId, worker: plan.workerName, action: planAnswer.action });
}

const context = broker.leadContext();
print({ done: true, leadMode: context.mode, leadAllowRules: context.rules.allow });
await server.stop();
