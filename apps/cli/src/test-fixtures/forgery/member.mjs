// A muster member process in plan mode, as the runtime will run one in a pane: it verifies its
// lead's control messages with the verify key on its command line and nothing else.
// Arguments: JSON settings {root, team, name, cwd}, then `--lead-verify-key KEY`.
// Asks the lead for a Bash call, a network host and its plan, then prints one JSON line per
// inbox delivery: {"state":{…}}. Exits once a verified shutdown_request arrives.
import { createMailbox } from '@muster/mailbox';
import {
  createAuditLog,
  createHostAccessGate,
  createLeadTrust,
  createMailboxMessenger,
  createPermissionClient,
  createPermissionContext,
  createPlanGate,
  createShutdownGate,
  guardControlMessages,
  leadVerifyKeyFromArguments,
  serveInbox,
} from '@muster/permissions';

const settings = JSON.parse(process.argv[2]);
const { root, team, name } = settings;
const print = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);

const mailbox = createMailbox({ root, team });
const audit = createAuditLog({ root, team });
const trust = createLeadTrust({
  agentName: name,
  verifyKey: leadVerifyKeyFromArguments(process.argv.slice(3)),
  audit,
});
const client = createPermissionClient({
  messenger: createMailboxMessenger({ mailbox, agentName: name }),
  teamName: team,
  trust,
  audit,
  timeoutMs: 60_000,
  context: createPermissionContext({
    mode: 'plan',
    workingDirectories: [settings.cwd],
    homeDirectory: settings.cwd,
  }),
});
const plan = createPlanGate({ client });
const hosts = createHostAccessGate({ client, timeoutMs: 60_000 });
let stopping = false;
const shutdown = createShutdownGate({
  trust,
  onRequest: () => {
    stopping = true;
  },
});
const answers = {};
const state = () => ({
  mode: client.context().mode,
  teamAllowedPaths: client.context().teamAllowedPaths.map((entry) => entry.path),
  pendingPermissions: client.pendingRequestIds(),
  pendingHosts: hosts.pendingRequestIds(),
  planStatus: plan.status(),
  allowedHosts: hosts.allowedHosts(),
  shutdownRequests: shutdown.requests().map((request) => request.requestId),
  answers,
});

// One inbox loop, as the runtime runs it: control messages pass the trust first.
const guarded = guardControlMessages(trust, [
  client.handleMessage,
  plan.handleMessage,
  hosts.handleMessage,
  shutdown.handleMessage,
]);
let deliveries = 0;
const server = serveInbox({
  mailbox,
  agentName: name,
  pollIntervalMs: 50,
  handlers: [
    async (message, delivery) => {
      const handled = await guarded(message, delivery);
      deliveries += 1;
      // Let answers settle (their promises resolve on the next turn) before reporting.
      await new Promise((resolve) => setImmediate(resolve));
      print({ deliveries, state: state() });
      return handled;
    },
  ],
});

const permission = client.requestPermission({ toolName: 'Bash', input: { command: 'npm test' } });
const host = hosts.requestHost('registry.npmjs.org');
const planAnswer = plan.submitPlan({
  planFilePath: `${settings.cwd}/plan.md`,
  planContent: '# Plan\n1. run the tests\n',
});
void permission.then((answer) => (answers.permission = answer));
void host.then((answer) => (answers.host = answer));
void planAnswer.then((answer) => (answers.plan = answer));
print({ ready: true, state: state() });

while (!stopping) await new Promise((resolve) => setTimeout(resolve, 20));
await server.stop();
print({ stopped: true, state: state() });
