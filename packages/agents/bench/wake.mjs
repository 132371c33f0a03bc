// Wake latency of an idle teammate: a message written to its inbox (the lead's send resolved)
// → the teammate's next model request reaching the model. The model is @muster/scripted-model,
// a TEST DOUBLE answering at once. Prints p50/p99 (and --json); asserts nothing.
// Usage: node bench/wake.mjs [--messages N] [--json]
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { runTeammate } from '@muster/agents';
import { createMailbox } from '@muster/mailbox';
import { createLeadKeyring } from '@muster/permissions';
import { createModelClient } from '@muster/query';
import { createScriptedFetch } from '@muster/scripted-model';
import { addMember, createTeam } from '@muster/teams';

const argv = process.argv.slice(2);
const json = argv.includes('--json');
const countIndex = argv.indexOf('--messages');
const messages = countIndex === -1 ? 100 : Number(argv[countIndex + 1]);
if (!Number.isInteger(messages) || messages < 1) {
  console.error('wake.mjs: --messages must be a positive integer.');
  process.exit(2);
}

/** Pause after the teammate reports idle, so that it is idle and not finishing its last turn. */
const settleMs = 50;

const percentile = (values, fraction) => {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)];
};

const root = await mkdtemp(path.join(tmpdir(), 'muster-bench-wake-'));
const controller = new AbortController();
let exit;
try {
  const { teamName } = await createTeam({ root, name: 'wake', cwd: root });
  await addMember(root, teamName, {
    name: 'alice',
    agentType: 'general-purpose',
    model: 'claude-bench-model',
    prompt: 'Bench.',
    planModeRequired: false,
    cwd: root,
    backendType: 'in-process',
    tmuxPaneId: 'in-process',
  });
  const keyring = createLeadKeyring();
  const lead = createMailbox({ root, team: teamName, ...keyring.mailboxOptions() });
  const requestTimes = [];
  let onRequest = () => undefined;
  const scriptedFetch = createScriptedFetch({
    script: () => {
      requestTimes.push(performance.now());
      onRequest();
      return { content: [{ type: 'text', text: 'ok' }] };
    },
  });
  const client = createModelClient({
    apiKey: 'sk-bench-0123456789abcdef',
    baseURL: 'http://scripted-model.invalid',
    retryBaseMs: 1,
    fetch: scriptedFetch,
  });
  let onIdle = () => undefined;
  exit = runTeammate({
    root,
    teamName,
    agentName: 'alice',
    cwd: root,
    client,
    model: 'claude-bench-model',
    systemPrompt: 'You are a bench teammate. (Scripted test double.)',
    tools: [],
    leadTrust: { ledger: keyring.ledger },
    signal: controller.signal,
    environment: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    homeDirectory: root,
    prompt: 'Start.',
    onEvent: (event) => {
      if (event.type === 'member_state' && event.state === 'idle') onIdle();
    },
  });
  const idle = () => new Promise((resolve) => (onIdle = resolve));
  await idle();

  const latencies = [];
  const sendDurations = [];
  for (let index = 0; index < messages; index += 1) {
    // Idle means settled: the idle notification, state and task-list work of the last turn
    // are done before the next message is written.
    await new Promise((resolve) => setTimeout(resolve, settleMs));
    const requested = new Promise((resolve) => (onRequest = resolve));
    const nowIdle = idle();
    const sendStart = performance.now();
    await lead.send('alice', { from: 'team-lead', text: `ping ${index}` });
    const written = performance.now();
    await requested;
    latencies.push(requestTimes.at(-1) - written);
    sendDurations.push(written - sendStart);
    await nowIdle;
  }
  const figures = {
    messages,
    wakeP50Ms: Number(percentile(latencies, 0.5).toFixed(2)),
    wakeP99Ms: Number(percentile(latencies, 0.99).toFixed(2)),
    wakeMaxMs: Number(Math.max(...latencies).toFixed(2)),
    sendP50Ms: Number(percentile(sendDurations, 0.5).toFixed(2)),
    settleMs,
    goalP99Ms: 25,
  };
  if (json) console.log(JSON.stringify({ bench: 'agents/wake', ...figures }));
  else {
    console.log(
      `agents wake (idle teammate settled ${settleMs} ms, message written → next model request, ${messages} messages): ` +
        `p50 ${figures.wakeP50Ms} ms, p99 ${figures.wakeP99Ms} ms, max ${figures.wakeMaxMs} ms ` +
        `(goal p99 ≤ ${figures.goalP99Ms} ms); the lead's send itself took p50 ${figures.sendP50Ms} ms`,
    );
  }
} finally {
  controller.abort('bench over');
  await exit;
  await rm(root, { recursive: true, force: true });
}
