// Test support (not exported): plays a demo teammate step by step from Claude Code
// 2.1.45-shaped requests, with the tool results and messages a test chooses.
import { expect } from 'vitest';
import { createScriptContext } from '../script-context.js';
import type { Reply } from '../types.js';
import {
  claudeCodeRequest,
  schemaProblems,
  teammateMessage,
  toolSchema,
  toolUsesOf,
  type AgentKind,
  type Message,
} from './demo-team-test-support.js';
import { demoTeamScript } from './demo-team.js';

/** The repository the teammates are told about. */
export const repository = '/tmp/demo/repo';
/** bob's plan file. */
export const planFile = '/tmp/demo/home/.claude/plans/quiet-river-agent-bob.md';

/** The teammate's reply to `messages`; every tool input fits Claude Code's schemas. */
export function ask(kind: AgentKind, messages: Message[]): Reply {
  const reply = demoTeamScript(
    claudeCodeRequest(kind, messages, repository),
    createScriptContext(),
  ) as Reply;
  for (const use of toolUsesOf(reply))
    expect(schemaProblems(toolSchema(use.name), use.input), use.name).toEqual([]);
  return reply;
}

let counter = 0;
/** The conversation after `reply`, its tools answered with `results` in order. */
export function after(
  messages: Message[],
  reply: Reply,
  ...results: (string | { content: string; isError: true })[]
): Message[] {
  const content = reply.content.map((block) =>
    block.type === 'tool_use' ? { ...block, id: `toolu_${++counter}` } : block,
  );
  const uses = content.filter((block) => block.type === 'tool_use');
  expect(uses).toHaveLength(results.length);
  const blocks = uses.map((use, position) => {
    const result = results[position]!;
    return typeof result === 'string'
      ? { type: 'tool_result', tool_use_id: use.id, content: result }
      : { type: 'tool_result', tool_use_id: use.id, content: result.content, is_error: true };
  });
  return [...messages, { role: 'assistant', content }, { role: 'user', content: blocks }];
}

/** The conversation after `reply`, then `entry` as the next user message. */
export function message(messages: Message[], reply: Reply, entry: string): Message[] {
  return [
    ...messages,
    { role: 'assistant', content: reply.content },
    { role: 'user', content: entry },
  ];
}

/** A shutdown request from team-lead to `name`. */
export const shutdownRequest = (name: string) =>
  teammateMessage(
    'team-lead',
    JSON.stringify({
      type: 'shutdown_request',
      requestId: `shutdown-99@${name}`,
      from: 'team-lead',
      reason: 'All done',
    }),
  );
