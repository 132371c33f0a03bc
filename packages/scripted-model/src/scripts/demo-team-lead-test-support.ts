// Test support (not exported): plays the demo lead step by step from Claude Code 2.1.45-shaped
// requests, with the tool results a test chooses.
import { expect } from 'vitest';
import { createScriptContext } from '../script-context.js';
import type { Reply } from '../types.js';
import {
  claudeCodeRequest,
  schemaProblems,
  toolSchema,
  toolUsesOf,
  type Message,
} from './demo-team-test-support.js';
import { demoTeamScript } from './demo-team.js';

const repository = '/tmp/demo/repo';

/** The lead's reply to `messages`; every tool input it makes fits Claude Code's schemas. */
export function ask(messages: Message[]): Reply {
  const reply = demoTeamScript(
    claudeCodeRequest('lead', messages, repository),
    createScriptContext(),
  ) as Reply;
  for (const use of toolUsesOf(reply))
    expect(schemaProblems(toolSchema(use.name), use.input), use.name).toEqual([]);
  return reply;
}

let counter = 0;
/** The conversation after the lead answered with `reply` and its tools returned `results`. */
export function after(
  messages: Message[],
  reply: Reply,
  results: (string | { content: string; isError: true })[],
): Message[] {
  const content = reply.content.map((block) =>
    block.type === 'tool_use' ? { ...block, id: `toolu_${++counter}` } : block,
  );
  const uses = content.filter((block) => block.type === 'tool_use');
  expect(uses).toHaveLength(results.length);
  return [
    ...messages,
    { role: 'assistant', content },
    {
      role: 'user',
      content: uses.map((use, position) => {
        const result = results[position]!;
        return typeof result === 'string'
          ? { type: 'tool_result', tool_use_id: use.id, content: result }
          : { type: 'tool_result', tool_use_id: use.id, content: result.content, is_error: true };
      }),
    },
  ];
}

/** The conversation after the lead answered with `reply` and `entries` arrived as one user message. */
export function withMessages(messages: Message[], reply: Reply, ...entries: string[]): Message[] {
  return [
    ...messages,
    { role: 'assistant', content: reply.content },
    { role: 'user', content: entries.join('\n\n') },
  ];
}

/** The person's prompt. */
export const start: Message[] = [
  { role: 'user', content: 'Add a slugify(text) function with tests and docs.' },
];
/** TeamCreate's result (the name got a suffix). */
export const teamCreated = JSON.stringify(
  {
    team_name: 'slugify-team-2',
    team_file_path: '/h/.claude/teams/slugify-team-2/config.json',
    lead_agent_id: 'team-lead@slugify-team-2',
  },
  null,
  2,
);

/** Plays the lead up to the spawned team, with task ids 4, 5, 6, 7 (another list already had 3). */
export function spawnedTeam(): { messages: Message[]; spawnReply: Reply } {
  let messages = start;
  const create = ask(messages);
  messages = after(messages, create, [teamCreated]);
  const tasks = ask(messages);
  messages = after(messages, tasks, [
    'Task #4 created successfully: Implement slugify()',
    'Task #5 created successfully: Write tests for slugify()',
    'Task #6 created successfully: Document slugify() in README.md',
    'Task #7 created successfully: Review slugify()',
  ]);
  const dependencies = ask(messages);
  messages = after(messages, dependencies, [
    'Updated task #5 blockedBy',
    'Updated task #6 blockedBy',
    'Updated task #7 blockedBy',
  ]);
  const spawnReply = ask(messages);
  messages = after(messages, spawnReply, [
    'Spawned successfully.\nagent_id: alice@slugify-team-2',
    'Spawned successfully.\nagent_id: bob@slugify-team-2',
    'Spawned successfully.\nagent_id: carol@slugify-team-2',
  ]);
  return { messages, spawnReply };
}
