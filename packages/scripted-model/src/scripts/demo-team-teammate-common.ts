/**
 * What the demo teammates share: finding the repository, the plan file and task ids in what
 * the request carries, reading Claude Code's Read output, and the shutdown answer.
 */
import { reply, text } from '../script-helpers.js';
import {
  allToolResults,
  messagesOf,
  spawnPromptOf,
  systemText,
  teammateMessages,
  toolCalls,
  toolResults,
  workingDirectoryOf,
  type ToolResult,
} from '../script-helpers-tellers.js';
import type { Reply, ReplyBlock, ScriptRequest } from '../types.js';
import { DEMO_MERGED, DEMO_SCRIPT_LABEL } from './demo-team-content.js';

/** A tool_use block (the server generates its id). */
export function toolBlock(name: string, input: Record<string, unknown>): ReplyBlock {
  return { type: 'tool_use', name, input };
}

/** The repository folder: the system prompt's working directory, else the one the spawn prompt names. */
export function repositoryOf(request: ScriptRequest): string | undefined {
  const directory =
    workingDirectoryOf(request) ??
    /The repository is at (\S+?)\.?$/m.exec(spawnPromptOf(request) ?? '')?.[1];
  return directory?.replace(/\/+$/, '');
}

/** A plan file path Claude Code names in the conversation (`…/plans/<slug>.md`), if any. */
export function planFileOf(request: ScriptRequest): string | undefined {
  const texts = [systemText(request)];
  for (const message of messagesOf(request)) {
    for (const block of message.content) {
      if (typeof block.text === 'string') texts.push(block.text);
      if (typeof block.content === 'string') texts.push(block.content);
      if (Array.isArray(block.content)) {
        for (const part of block.content as { text?: unknown }[]) {
          if (typeof part?.text === 'string') texts.push(part.text);
        }
      }
    }
  }
  for (const value of texts.reverse()) {
    const match = /(\/[^\s"'`<>()]*\/plans\/[^\s"'`<>()]+\.md)/.exec(value);
    if (match?.[1] !== undefined) return match[1];
  }
  return undefined;
}

/** A Read result's file text without Claude Code's line numbers (`   1→…` or `   1\t…`) or reminders. */
export function readText(result: ToolResult): string {
  return result.content
    .replace(/<system-reminder>[\s\S]*?<\/system-reminder>/g, '')
    .split('\n')
    .map((line) => line.replace(/^\s*\d+(?:→|\t)/, ''))
    .join('\n');
}

/** The task ids a spawn prompt names (`#3`), in order. */
export function promptTaskIds(request: ScriptRequest): string[] {
  return [...(spawnPromptOf(request) ?? '').matchAll(/#(\d+)/g)].map((match) => match[1] ?? '');
}

/** Approves a shutdown request (or says why it cannot). */
export function shutdownReply(requestId: unknown, name: string): Reply {
  if (typeof requestId !== 'string' || requestId === '') {
    return text(
      `demo-team ${name}: the shutdown request carries no requestId, so I cannot answer it.`,
    );
  }
  return reply({
    content: [
      'Work is done on my side; approving the shutdown.',
      toolBlock('SendMessage', { type: 'shutdown_response', request_id: requestId, approve: true }),
    ],
  });
}

/**
 * A shutdown request delivered together with tool results (a runtime hands the model the
 * lead's messages that arrived while its tools ran, with their results: muster's mid-turn
 * delivery); undefined when the last user message carries no results or no such request.
 */
export function shutdownRequestWithResults(
  request: ScriptRequest,
): { requestId: unknown } | undefined {
  if (toolResults(request).length === 0) return undefined;
  const shutdown = teammateMessages(request).find(
    (message) => message.payload?.type === 'shutdown_request',
  );
  return shutdown === undefined ? undefined : { requestId: shutdown.payload?.requestId };
}

/** Whether this is the teammate's first turn: only its spawn prompt so far. */
export function isFirstTurn(request: ScriptRequest): boolean {
  return (
    toolCalls(request).length === 0 &&
    messagesOf(request).filter((message) => message.role === 'user').length === 1
  );
}

/** The last non-empty line, or the first one containing a string. */
export function lastNonEmptyLine(content: string, containing?: string): string | undefined {
  const lines = content
    .split('\n')
    .filter(
      (line) => line.trim() !== '' && (containing === undefined || line.includes(containing)),
    );
  return containing === undefined ? lines.at(-1) : lines[0];
}

/** A clear text reply after a tool failed. */
export function failed(name: string, result: ToolResult): Reply {
  return text(
    `demo-team ${name}: ${result.toolName} failed (${result.content.slice(0, 300)}), so I stop here and wait for team-lead.`,
  );
}

/** One sentence on how the last test run went (passed, denied, failed, not run). */
export function testsOutcome(request: ScriptRequest): string {
  const bash = allToolResults(request)
    .filter((result) => result.toolName === 'Bash' && !isGitCommand(result.input.command))
    .at(-1);
  if (bash === undefined) return 'I did not run the tests.';
  const command = String(bash.input.command);
  if (!bash.isError) return `${command} passes.`;
  // A command that ran ends with its exit code; anything else is the answer to the permission
  // request (a person's reason, or the lead's policy).
  const ran = /Exit code \d+\s*$/.test(bash.content.trim()) && !/denied/i.test(bash.content);
  if (ran) return `${command} failed: ${bash.content.slice(0, 200)}`;
  const reason = bash.content.trim().split('\n')[0]?.slice(0, 160) ?? '';
  return `I was not allowed to run ${command}, so it is untested${reason === '' ? '' : ` (the answer was: ${reason})`}.`;
}

/**
 * A person's free text in the last user message: a plain message from team-lead (how muster
 * delivers what the person types to a teammate) that is not the spawn prompt. Undefined when
 * there is none.
 */
export function personMessageOf(request: ScriptRequest): string | undefined {
  const spawnPrompt = spawnPromptOf(request);
  const messages = teammateMessages(request).filter(
    (entry) => entry.from === 'team-lead' && entry.payload === undefined,
  );
  // The first user message opens with the spawn prompt: it is no message of the person's.
  if (messagesOf(request).filter((message) => message.role === 'user').length === 1)
    messages.shift();
  // The lead's word that it merged alice's branch is the lead's, not the person's.
  const message = messages
    .filter((entry) => entry.text !== spawnPrompt && !entry.text.trim().startsWith(DEMO_MERGED))
    .at(-1);
  return message?.text.trim();
}

/** The teammate's answer to a person's message: what it heard, where it stands, that it goes on. */
export function personNote(name: string, message: string, status: string): string {
  const quoted = message.length > 80 ? `${message.slice(0, 79)}…` : message;
  return `${DEMO_SCRIPT_LABEL} ${name} here: thanks, I read your message ("${quoted}"). ${status} I carry on with my part.`;
}

/**
 * `base` with the answer to a person's message in front when the last user message holds one
 * (the message arrived while the teammate worked: it answers and goes on with the same step).
 */
export function withPersonNote(
  request: ScriptRequest,
  base: Reply,
  name: string,
  status: string,
): Reply {
  const message = personMessageOf(request);
  if (message === undefined) return base;
  const note = personNote(name, message, status);
  if (base.content.some((block) => block.type === 'text' && block.text === note)) return base;
  return { ...base, content: [{ type: 'text', text: note }, ...base.content] };
}

/** Whether a Bash command is a git command (alice's commit, the lead's merge), not a test run. */
export function isGitCommand(command: unknown): boolean {
  return typeof command === 'string' && /^git\s/.test(command.trim());
}

/**
 * The repository the spawn prompt names (`The repository is at …`): the main checkout, even
 * when the teammate works in a worktree of its own.
 */
export function mainRepositoryOf(request: ScriptRequest): string | undefined {
  return /The repository is at (\S+?)\.?$/m
    .exec(spawnPromptOf(request) ?? '')?.[1]
    ?.replace(/\/+$/, '');
}
