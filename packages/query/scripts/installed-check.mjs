/* global Response */
// Run by scripts/check-installable.mjs in an empty folder where only the packed @muster/query
// and what it depends on were installed with npm: imports it by name and runs one agent turn
// through the real @anthropic-ai/sdk against a fetch that answers with a canned SSE stream
// (a stand-in for the model, written here; no network).
import { createAgent, createModelClient, QueryError, resolveModelName } from '@muster/query';

const frames = [
  [
    'message_start',
    {
      type: 'message_start',
      message: {
        id: 'msg_check',
        type: 'message',
        role: 'assistant',
        model: 'check (stand-in)',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 12, output_tokens: 1 },
      },
    },
  ],
  [
    'content_block_start',
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  ],
  [
    'content_block_delta',
    {
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'text_delta', text: 'Installed and working.' },
    },
  ],
  ['content_block_stop', { type: 'content_block_stop', index: 0 }],
  [
    'message_delta',
    {
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: 5 },
    },
  ],
  ['message_stop', { type: 'message_stop' }],
];
const body = frames
  .map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
  .join('');
const standIn = async () =>
  new Response(body, {
    status: 200,
    headers: { 'content-type': 'text/event-stream', 'request-id': 'req_check' },
  });

const client = createModelClient({
  apiKey: 'check-key',
  baseURL: 'http://stand-in.invalid',
  fetch: standIn,
});
const agent = createAgent({
  client,
  model: resolveModelName('sonnet'),
  identity: { name: 'checker', id: 'checker@installed' },
  system: 'You check an installation.',
  tools: [],
  cwd: process.cwd(),
  roots: () => ({ read: [process.cwd()], write: [process.cwd()] }),
  authorize: async () => ({ behavior: 'deny', message: 'no tools here' }),
});
const result = await agent.send('Are you there?').result;
await agent.close();
if (result.reason !== 'completed' || result.text !== 'Installed and working.') {
  throw new Error(`unexpected turn result: ${JSON.stringify(result)}`);
}
let refused = false;
try {
  resolveModelName('not a model');
} catch (error) {
  refused = error instanceof QueryError && error.code === 'INVALID_OPTIONS';
}
if (!refused) throw new Error('a malformed model name was not refused');
console.log(`used @muster/query: ${result.text} (${agent.usage().outputTokens} output tokens)`);
