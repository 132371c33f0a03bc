// A lead process for the lead-SIGKILL test: a team runtime (the built dist) whose lead and
// teammates are answered by @muster/scripted-model over HTTP — a TEST DOUBLE, not a model.
// It spawns one teammate per backend named in MUSTER_FIXTURE_PLACEMENT (name=backend,…), each
// of which starts a `sleep` of the test's unique length (the marker) and stays in it; then it prints READY and waits
// to be killed.
import { createTeamRuntime } from '../dist/index.js';
import { createModelClient } from '@muster/query';
import { startScriptedModel } from '@muster/scripted-model';

const [root, cwd, teamName, marker] = process.argv.slice(2);
const placement = Object.fromEntries(
  process.env.MUSTER_FIXTURE_PLACEMENT.split(',').map((pair) => pair.split('=')),
);
const names = Object.keys(placement);
const text = (request) => {
  const last = request.body.messages.at(-1).content;
  return typeof last === 'string'
    ? last
    : last
        .map((block) => (block.type === 'text' ? block.text : JSON.stringify(block.content)))
        .join('\n');
};
const reply = (content) => ({ content });
const call = (name, input) => reply([{ type: 'tool_use', name, input }]);
const say = (words) => reply([{ type: 'text', text: words }]);
let spawned = 0;
const script = (request) => {
  const system = JSON.stringify(request.body.system);
  const isTeammate = /a member of the team/.test(system);
  const last = text(request);
  if (isTeammate) {
    if (last.includes('Sleep now')) return call('Bash', { command: `sleep ${marker}` });
    return say('Sleeping.');
  }
  if (last.includes('Begin')) return call('TeamCreate', { team_name: teamName });
  if (spawned < names.length) {
    const name = names[spawned++];
    return call('Task', {
      description: 'Sleep',
      prompt: 'Sleep now.',
      subagent_type: 'general-purpose',
      name,
      team_name: teamName,
    });
  }
  return say('All spawned.');
};
const server = await startScriptedModel({ script });
const modelEnvironment = {
  ANTHROPIC_API_KEY: 'sk-test-lead-kill-0123456789',
  ANTHROPIC_BASE_URL: server.url,
};
const client = createModelClient({
  apiKey: modelEnvironment.ANTHROPIC_API_KEY,
  baseURL: server.url,
  retryBaseMs: 1,
});
const runtime = await createTeamRuntime({
  root,
  cwd,
  client,
  model: 'claude-test-model',
  homeDirectory: cwd,
  environment: { PATH: process.env.PATH, HOME: cwd },
  modelEnvironment,
  permissionRules: { allow: ['Bash(sleep:*)'] },
  askPolicy: 'headless',
  teammateMode: ({ name }) => placement[name],
});
await runtime.prompt('Begin.');
const deadline = Date.now() + 60_000;
while (
  runtime.members().filter((member) => member.alive).length < names.length &&
  Date.now() < deadline
) {
  await new Promise((resolve) => setTimeout(resolve, 50));
}
process.stdout.write(`READY ${JSON.stringify(runtime.members())}\n`);
setInterval(() => {}, 1_000);
