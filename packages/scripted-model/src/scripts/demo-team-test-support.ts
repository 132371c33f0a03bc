/**
 * Test support for the demo-team script (not exported): builds requests shaped like Claude Code
 * 2.1.45's (system prompt with the working directory, the tools each agent is offered, the
 * teammate addendum, `<teammate-message>` turns, tool_result blocks) and a small simulated
 * team runtime that executes the script's tool calls for real on a temporary repository.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Reply, ScriptRequest } from '../types.js';

const toolsFolder = join(
  dirname(fileURLToPath(import.meta.url)),
  '../../../../fixtures/claude-code-2.1.45-all-tools',
);

/** The JSON input schema Claude Code 2.1.45 offered for a tool (from fixtures/). */
export function toolSchema(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(toolsFolder, `${name}.input_schema.json`), 'utf8')) as Record<
    string,
    unknown
  >;
}

/** The tools offered to each kind of agent, from fixtures/…/tools-offered.index.json. */
export const OFFERED_TOOLS = JSON.parse(
  readFileSync(join(toolsFolder, 'tools-offered.index.json'), 'utf8'),
) as Record<'lead' | 'teammate' | 'teammate-plan-mode', string[]>;

/** One request message. */
export type Message = { role: 'user' | 'assistant'; content: string | Record<string, unknown>[] };

/** Which tool set and system prompt an agent gets. */
export type AgentKind = 'lead' | 'teammate' | 'teammate-plan-mode';

const TEAMMATE_ADDENDUM =
  '\n\n# Agent Teammate Communication\n\nIMPORTANT: You are running as an agent in a team. To communicate with anyone on your team:\n- Use the SendMessage tool with type "message" to send messages to specific teammates\n- Use the SendMessage tool with type "broadcast" sparingly for team-wide announcements\n\nJust writing a response in text is not visible to others on your team - you MUST use the SendMessage tool.';

/** A Claude Code-like request of one agent with the given conversation. */
export function claudeCodeRequest(
  kind: AgentKind,
  messages: Message[],
  workingDirectory = '/tmp/demo/repo',
  index = 0,
): ScriptRequest {
  const system = [
    {
      type: 'text',
      text: "You are Claude Code, Anthropic's official CLI for Claude.",
      cache_control: { type: 'ephemeral' },
    },
    {
      type: 'text',
      text: `You are an interactive agent that helps users with software engineering tasks.\n\n<env>\nWorking directory: ${workingDirectory}\nIs directory a git repo: Yes\nPlatform: linux\n</env>${kind === 'lead' ? '' : TEAMMATE_ADDENDUM}`,
      cache_control: { type: 'ephemeral' },
    },
  ];
  return {
    index,
    path: '/v1/messages?beta=true',
    headers: { 'anthropic-version': '2023-06-01', 'x-api-key': 'test-key' },
    receivedAt: 0,
    body: {
      model: kind === 'lead' ? 'claude-sonnet-4-6' : 'claude-opus-4-6',
      max_tokens: 32000,
      system,
      tools: OFFERED_TOOLS[kind].map((name) => ({
        name,
        description: `${name} tool`,
        input_schema: toolSchema(name),
      })),
      messages,
      stream: true,
      metadata: { user_id: 'user_demo_account__session_1' },
    },
  };
}

/** `<teammate-message …>` as Claude Code renders an inbox entry for the model. */
export function teammateMessage(
  from: string,
  body: string,
  extra: { color?: string; summary?: string } = {},
): string {
  const color = extra.color ? ` color="${extra.color}"` : '';
  const summary = extra.summary ? ` summary="${extra.summary}"` : '';
  return `<teammate-message teammate_id="${from}"${color}${summary}>\n${body}\n</teammate-message>`;
}

/** Checks a value against the subset of JSON Schema Claude Code's tool schemas use; returns problems. */
export function schemaProblems(
  schema: Record<string, unknown>,
  value: unknown,
  path = 'input',
): string[] {
  const problems: string[] = [];
  if (Array.isArray(schema.anyOf)) {
    const ok = (schema.anyOf as Record<string, unknown>[]).some(
      (option) => schemaProblems(option, value, path).length === 0,
    );
    return ok ? [] : [`${path}: matches no allowed shape`];
  }
  if ('const' in schema && value !== schema.const)
    problems.push(`${path}: must be ${JSON.stringify(schema.const)}`);
  if (Array.isArray(schema.enum) && !schema.enum.includes(value))
    problems.push(`${path}: ${JSON.stringify(value)} not in enum`);
  const type = schema.type;
  const typeOk =
    type === undefined ||
    (type === 'object' && value !== null && typeof value === 'object' && !Array.isArray(value)) ||
    (type === 'array' && Array.isArray(value)) ||
    (type === 'string' && typeof value === 'string') ||
    (type === 'boolean' && typeof value === 'boolean') ||
    (type === 'number' && typeof value === 'number') ||
    (type === 'integer' && Number.isInteger(value));
  if (!typeOk) return [...problems, `${path}: expected ${String(type)}`];
  if (type === 'object') {
    const record = value as Record<string, unknown>;
    const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
    for (const key of (schema.required ?? []) as string[])
      if (!(key in record)) problems.push(`${path}.${key}: required`);
    for (const [key, item] of Object.entries(record)) {
      const property = properties[key];
      if (property !== undefined)
        problems.push(...schemaProblems(property, item, `${path}.${key}`));
      else if (schema.additionalProperties === false) problems.push(`${path}.${key}: not allowed`);
    }
  }
  if (type === 'array' && schema.items !== undefined) {
    (value as unknown[]).forEach((item, position) =>
      problems.push(
        ...schemaProblems(schema.items as Record<string, unknown>, item, `${path}[${position}]`),
      ),
    );
  }
  return problems;
}

/** Every tool_use block of a reply. */
export function toolUsesOf(reply: Reply): { name: string; input: Record<string, unknown> }[] {
  return reply.content.flatMap((block) =>
    block.type === 'tool_use'
      ? [{ name: block.name, input: block.input as Record<string, unknown> }]
      : [],
  );
}

/** Writes the files of a repository map under a folder. */
export async function writeRepository(
  folder: string,
  files: Readonly<Record<string, string>>,
): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(folder, path)), { recursive: true });
    await writeFile(join(folder, path), content);
  }
}

/** Renders a file the way Claude Code's Read tool returns it (`     1→line`). */
export async function readAsClaudeCode(path: string): Promise<string> {
  const lines = (await readFile(path, 'utf8')).replace(/\n$/, '').split('\n');
  return lines.map((line, position) => `${String(position + 1).padStart(6)}→${line}`).join('\n');
}

/** Runs a shell command in a folder, bounded; returns [output, failed]. */
export function runCommand(command: string, cwd: string): [string, boolean] {
  try {
    return [
      execFileSync('sh', ['-c', command], {
        cwd,
        timeout: 30_000,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
      false,
    ];
  } catch (error) {
    const failure = error as { stdout?: string; stderr?: string; message: string };
    return [`${failure.stdout ?? ''}${failure.stderr ?? failure.message}`, true];
  }
}

/** A tool result to feed back: text, or an error. */
export type ResultSpec = string | { content: string; isError: true };

/** The conversation after an agent answered with `reply` and its tools returned `results` (ids assigned). */
export function continueAfter(
  messages: Message[],
  reply: Reply,
  results: ResultSpec[],
  idPrefix = 'toolu_t',
): Message[] {
  let count = messages.length * 10;
  const content = reply.content.map((block) =>
    block.type === 'tool_use' ? { ...block, id: block.id ?? `${idPrefix}${++count}` } : block,
  );
  const uses = content.filter((block) => block.type === 'tool_use');
  if (uses.length !== results.length) {
    throw new Error(`continueAfter: ${uses.length} tool calls but ${results.length} results`);
  }
  const blocks = uses.map((use, position) => {
    const result = results[position] as ResultSpec;
    return typeof result === 'string'
      ? { type: 'tool_result', tool_use_id: use.id, content: result }
      : { type: 'tool_result', tool_use_id: use.id, content: result.content, is_error: true };
  });
  return [...messages, { role: 'assistant', content }, { role: 'user', content: blocks }];
}
