// A @muster/scripted-model script (a TEST DOUBLE of the Messages API, not a model) for a team
// that never finishes: the lead creates a team, spawns alice, then runs `sleep <marker>`; alice
// runs `sleep <marker>` too. The marker (a number of seconds with a unique fraction) comes from
// the lead's prompt, "… marker 2999.12345", so a test can look for the processes afterwards.
const textOf = (message) =>
  typeof message.content === 'string'
    ? message.content
    : message.content.map((block) => (block.type === 'text' ? block.text : '')).join('\n');

const reply = (content) => ({ content });
const call = (name, input) => ({ type: 'tool_use', name, input });

export default function script(request) {
  const messages = request.body.messages;
  const tools = (request.body.tools ?? []).map((tool) => tool.name);
  const marker = /marker (\d+\.\d+)/.exec(textOf(messages[0]))?.[1] ?? '2999.5';
  const last = messages.at(-1);
  const results = Array.isArray(last.content)
    ? last.content.filter((block) => block.type === 'tool_result')
    : [];
  const calls = messages
    .filter((message) => message.role === 'assistant' && Array.isArray(message.content))
    .flatMap((message) => message.content.filter((block) => block.type === 'tool_use'))
    .map((block) => block.name);
  if (tools.length === 0) return reply([{ type: 'text', text: 'never-finishing team' }]);
  if (!tools.includes('Task')) {
    // alice: one long command, then she keeps waiting.
    if (!calls.includes('Bash'))
      return reply([call('Bash', { command: `sleep ${marker}`, description: 'Wait forever' })]);
    return reply([{ type: 'text', text: 'Still waiting.' }]);
  }
  if (results.length === 0 && calls.length === 0)
    return reply([call('TeamCreate', { team_name: 'stuck', description: 'Never finishes' })]);
  if (!calls.includes('Task')) {
    return reply([
      call('Task', {
        description: 'Wait forever',
        prompt: `You are alice. Run the long job, marker ${marker}.`,
        subagent_type: 'general-purpose',
        name: 'alice',
        team_name: 'stuck',
      }),
    ]);
  }
  if (!calls.includes('Bash'))
    return reply([call('Bash', { command: `sleep ${marker}`, description: 'Wait forever' })]);
  return {
    content: [{ type: 'text', text: 'unreachable' }],
    fault: { kind: 'silence-after-headers' },
  };
}
