// A worker process: asks its lead through the real inboxes. Arguments: JSON settings, then
// the lead's launch arguments (`--lead-verify-key KEY`).
// Prints one JSON line per step result, `{"ready":true}` once it reads its inbox.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createMailbox } from '@muster/mailbox';
import { readTeam } from '@muster/teams';
import {
  createAuditLog,
  createLeadTrust,
  createMailboxMessenger,
  createPermissionClient,
  createPermissionContext,
  createPlanGate,
  leadVerifyKeyFromArguments,
  serveInbox,
} from '../../dist/index.js';

const settings = JSON.parse(process.argv[2]);
const { root, team, name } = settings;
const print = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);

const mailbox = createMailbox({ root, team });
const config = await readTeam(root, team);
const audit = createAuditLog({ root, team });
const trust = createLeadTrust({
  agentName: name,
  verifyKey: leadVerifyKeyFromArguments(process.argv.slice(3)),
  audit,
});
const client = createPermissionClient({
  trust,
  messenger: createMailboxMessenger({ mailbox, agentName: name }),
  teamName: team,
  timeoutMs: settings.timeoutMs ?? 20_000,
  audit,
  context: createPermissionContext({
    mode: settings.mode ?? 'default',
    workingDirectories: [settings.cwd],
    homeDirectory: settings.home,
    // Team-level grants are inherited at startup.
    teamAllowedPaths: config.teamAllowedPaths ?? [],
  }),
});
const gate = createPlanGate({ client });
const server = serveInbox({
  mailbox,
  agentName: name,
  handlers: [client.handleMessage, gate.handleMessage],
  trust,
  pollIntervalMs: 100,
});

/** Runs the tool when allowed: a Write really writes the (possibly edited) input. */
async function authorizeAndRun(call, id) {
  const result = await client.authorize(call);
  if (result.behavior === 'allow' && call.toolName === 'Write') {
    await mkdir(path.dirname(result.input.file_path), { recursive: true });
    await writeFile(result.input.file_path, result.input.content);
  }
  print({
    id,
    behavior: result.behavior,
    input: result.input,
    message: result.message,
    kind: result.decision.reason.kind,
    asked: result.answer !== undefined,
    requestId: result.answer?.requestId,
  });
}

print({ ready: true });
for (const step of settings.steps) {
  if (step.do === 'authorize') await authorizeAndRun(step.call, step.id);
  if (step.do === 'authorizeConcurrently') {
    await Promise.all(
      step.calls.map((call, index) => authorizeAndRun(call, `${step.id}-${index}`)),
    );
  }
  if (step.do === 'submitPlan') {
    const answer = await gate.submitPlan(step.plan);
    print({ id: step.id, ...answer, status: gate.status(), mode: client.context().mode });
  }
  if (step.do === 'waitForTeamPath') {
    while (!client.context().teamAllowedPaths.some((entry) => entry.path === step.path)) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    print({ id: step.id, teamAllowedPaths: client.context().teamAllowedPaths });
  }
}
await server.stop();
