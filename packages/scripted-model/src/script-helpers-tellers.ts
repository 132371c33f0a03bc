/**
 * Tellers: read what a real Messages API request carries (system prompt, messages, tools,
 * metadata) to tell agents apart and see what just happened. They never throw on odd input:
 * a missing or ill-formed part reads as empty.
 *
 * How Claude Code 2.1.45 tells them apart on the wire: the lead is offered `Task` and
 * `TeamCreate`, teammates are not; a teammate's first user message is its spawn prompt wrapped
 * as `<teammate-message teammate_id="team-lead">…</teammate-message>`; teammates share the
 * lead's `metadata.user_id`. The teammate's own name is not on the wire, so `agentNameOf` reads
 * it from the spawn prompt the lead wrote ("You are alice", "Your name is alice", …).
 */
import type { ScriptRequest } from './types.js';

/** One content block of a request message, loosely typed (requests are untrusted JSON). */
type LooseBlock = Record<string, unknown>;
/** One request message, loosely typed. */
interface LooseMessage {
  role: string;
  content: LooseBlock[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The request's messages with string content turned into one text block; ill-formed entries skipped. */
export function messagesOf(request: ScriptRequest): LooseMessage[] {
  const messages =
    isRecord(request?.body) && Array.isArray(request.body.messages) ? request.body.messages : [];
  const result: LooseMessage[] = [];
  for (const message of messages) {
    if (!isRecord(message) || typeof message.role !== 'string') continue;
    const content =
      typeof message.content === 'string'
        ? [{ type: 'text', text: message.content }]
        : Array.isArray(message.content)
          ? message.content.filter(isRecord)
          : [];
    result.push({ role: message.role, content });
  }
  return result;
}

const SYSTEM_REMINDER = /<system-reminder>[\s\S]*?<\/system-reminder>/g;

function textOf(message: LooseMessage | undefined, keepSystemReminders: boolean): string {
  if (message === undefined) return '';
  const parts = message.content
    .filter((block) => block.type === 'text' && typeof block.text === 'string')
    .map((block) =>
      keepSystemReminders
        ? (block.text as string)
        : (block.text as string).replace(SYSTEM_REMINDER, ''),
    )
    .map((part) => part.trim())
    .filter((part) => part.length > 0);
  return parts.join('\n\n');
}

/** Options of the text tellers. */
export interface UserTextOptions {
  /** Keep `<system-reminder>` blocks Claude Code adds to user turns (default: removed). */
  keepSystemReminders?: boolean;
}

/** The text blocks of the last user message (tool results excluded), joined by a blank line. */
export function lastUserText(request: ScriptRequest, options: UserTextOptions = {}): string {
  const users = messagesOf(request).filter((message) => message.role === 'user');
  return textOf(users.at(-1), options.keepSystemReminders === true);
}

/** The text of the first user message: the lead's prompt, or a teammate's wrapped spawn prompt. */
export function firstUserText(request: ScriptRequest, options: UserTextOptions = {}): string {
  const first = messagesOf(request).find((message) => message.role === 'user');
  return textOf(first, options.keepSystemReminders === true);
}

/** The system prompt as one string (text blocks joined by a blank line); '' when absent. */
export function systemText(request: ScriptRequest): string {
  const system = isRecord(request?.body) ? request.body.system : undefined;
  if (typeof system === 'string') return system;
  if (!Array.isArray(system)) return '';
  return system
    .filter(isRecord)
    .filter((block) => typeof block.text === 'string')
    .map((block) => block.text as string)
    .join('\n\n');
}

/** The names of the tools the request offers, in order. */
export function toolNames(request: ScriptRequest): string[] {
  const tools =
    isRecord(request?.body) && Array.isArray(request.body.tools) ? request.body.tools : [];
  return tools
    .filter(isRecord)
    .flatMap((tool) => (typeof tool.name === 'string' ? [tool.name] : []));
}

/** Whether the request offers a tool of that name. */
export function hasTool(request: ScriptRequest, name: string): boolean {
  return toolNames(request).includes(name);
}

/** `metadata.user_id` of the request (teammates share their lead's). */
export function userIdOf(request: ScriptRequest): string | undefined {
  const metadata = isRecord(request?.body) ? request.body.metadata : undefined;
  return isRecord(metadata) && typeof metadata.user_id === 'string' ? metadata.user_id : undefined;
}

/**
 * The working directory the system prompt states: Claude Code's `Working directory: /path`
 * (`Primary working directory:` in later versions), also as a list item (`- Working directory:
 * /path`, as muster's lead and teammate prompts have it).
 */
export function workingDirectoryOf(request: ScriptRequest): string | undefined {
  const match = /(?:^|\n)\s*(?:[-*]\s+)?(?:Primary )?[Ww]orking directory:\s*(\S[^\n]*)/.exec(
    systemText(request),
  );
  return match?.[1]?.trim();
}

/**
 * One `<teammate-message>` as the model sees it, with its JSON payload when it is a protocol
 * message (the whole body, or its first line when instructions follow it).
 */
export interface TeammateMessage {
  /** The sender's name (`teammate_id`). */
  from: string;
  /** `color` attribute, when present. */
  color?: string;
  /** `summary` attribute, when present. */
  summary?: string;
  /** The body between the tags. */
  text: string;
  /** The parsed body when it is a JSON object with a string `type` (shutdown_request, …). */
  payload?: Record<string, unknown> & { type: string };
}

function unescapeAttribute(value: string): string {
  return value
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&#10;/g, '\n')
    .replace(/&#13;/g, '\r')
    .replace(/&amp;/g, '&');
}

const TEAMMATE_MESSAGE =
  /<teammate-message((?:\s+[a-z_]+="[^"]*")*)\s*>\n?([\s\S]*?)\n?<\/teammate-message>/g;

/** Parses every `<teammate-message …>` in a string, in order. */
export function parseTeammateMessages(value: string): TeammateMessage[] {
  const result: TeammateMessage[] = [];
  for (const match of value.matchAll(TEAMMATE_MESSAGE)) {
    const attributes = new Map<string, string>();
    for (const attribute of (match[1] ?? '').matchAll(/([a-z_]+)="([^"]*)"/g)) {
      attributes.set(attribute[1] ?? '', unescapeAttribute(attribute[2] ?? ''));
    }
    const from = attributes.get('teammate_id');
    if (from === undefined) continue;
    const message: TeammateMessage = { from, text: match[2] ?? '' };
    const color = attributes.get('color');
    const summary = attributes.get('summary');
    if (color !== undefined) message.color = color;
    if (summary !== undefined) message.summary = summary;
    // A runtime may follow the JSON with instructions on later lines (muster does for a
    // shutdown_request): the payload is then the first line alone.
    const body = message.text.trim();
    const payload = parseJsonObject(body) ?? parseJsonObject(body.split('\n')[0] ?? '');
    if (payload !== undefined && typeof payload.type === 'string')
      message.payload = payload as TeammateMessage['payload'];
    result.push(message);
  }
  return result;
}

function parseJsonObject(value: string): Record<string, unknown> | undefined {
  if (!value.startsWith('{')) return undefined;
  try {
    const parsed: unknown = JSON.parse(value);
    return isRecord(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** The teammate messages delivered in the last user message (a lead may get several at once). */
export function teammateMessages(request: ScriptRequest): TeammateMessage[] {
  return parseTeammateMessages(lastUserText(request, { keepSystemReminders: true }));
}

/** Every teammate message in the conversation so far, oldest first. */
export function allTeammateMessages(request: ScriptRequest): TeammateMessage[] {
  return messagesOf(request)
    .filter((message) => message.role === 'user')
    .flatMap((message) => parseTeammateMessages(textOf(message, true)));
}

/** One tool call the model made earlier in the conversation. */
export interface ToolCall {
  /** tool_use id. */
  id: string;
  /** Tool name. */
  name: string;
  /** Tool input as sent. */
  input: Record<string, unknown>;
}

/** Every tool_use the assistant made in the conversation, oldest first. */
export function toolCalls(request: ScriptRequest): ToolCall[] {
  return messagesOf(request)
    .filter((message) => message.role === 'assistant')
    .flatMap((message) => message.content)
    .flatMap((block) =>
      block.type === 'tool_use' && typeof block.id === 'string' && typeof block.name === 'string'
        ? [{ id: block.id, name: block.name, input: isRecord(block.input) ? block.input : {} }]
        : [],
    );
}

/** One tool_result of the last user message, joined with the call it answers. */
export interface ToolResult {
  /** The tool_use id it answers. */
  toolUseId: string;
  /** The tool's name, from the matching tool_use ('' when the call is not in the conversation). */
  toolName: string;
  /** The matching call's input ({} when unknown). */
  input: Record<string, unknown>;
  /** The result's text (text parts joined by a newline). */
  content: string;
  /** Whether the result is an error (denied permission, failed tool, …). */
  isError: boolean;
}

/** The tool_result blocks of the last user message, in order, each with the call it answers. */
export function toolResults(request: ScriptRequest): ToolResult[] {
  const users = messagesOf(request).filter((message) => message.role === 'user');
  return resultsIn(request, users.slice(-1));
}

/** Every tool_result of the conversation, oldest first, each with the call it answers. */
export function allToolResults(request: ScriptRequest): ToolResult[] {
  return resultsIn(
    request,
    messagesOf(request).filter((message) => message.role === 'user'),
  );
}

function resultsIn(request: ScriptRequest, messages: LooseMessage[]): ToolResult[] {
  const calls = new Map(toolCalls(request).map((call) => [call.id, call]));
  return messages
    .flatMap((message) => message.content)
    .filter((block) => block.type === 'tool_result' && typeof block.tool_use_id === 'string')
    .map((block) => {
      const toolUseId = block.tool_use_id as string;
      const call = calls.get(toolUseId);
      return {
        toolUseId,
        toolName: call?.name ?? '',
        input: call?.input ?? {},
        content: resultText(block.content),
        isError: block.is_error === true,
      };
    });
}

function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter(isRecord)
    .flatMap((part) => (part.type === 'text' && typeof part.text === 'string' ? [part.text] : []))
    .join('\n');
}

/** Whether the request comes from a team lead: it is offered both `Task` and `TeamCreate`. */
export function isLeadRequest(request: ScriptRequest): boolean {
  return hasTool(request, 'Task') && hasTool(request, 'TeamCreate') && !isTeammateRequest(request);
}

/** Whether the request comes from a teammate: its first user message is a spawn prompt from team-lead. */
export function isTeammateRequest(request: ScriptRequest): boolean {
  return spawnPromptOf(request) !== undefined;
}

/** A teammate's spawn prompt: the body of its first user message's `<teammate-message teammate_id="team-lead">`. */
export function spawnPromptOf(request: ScriptRequest): string | undefined {
  const first = firstUserText(request);
  if (!first.startsWith('<teammate-message')) return undefined;
  const message = parseTeammateMessages(first)[0];
  return message?.from === 'team-lead' ? message.text : undefined;
}

const NOT_NAMES = new Set(
  'a an the now going working part on in at responsible tasked assigned helping here claude one team teammate agent an expert'.split(
    ' ',
  ),
);

const NAME_PATTERNS: readonly RegExp[] = [
  /\bYour name is\s+["'`*]*([A-Za-z][\w-]*)/i,
  /\bYou are (?:teammate|agent)\s+["'`*]*([A-Za-z][\w-]*)/i,
  /\bteammate named\s+["'`*]*([A-Za-z][\w-]*)/i,
  /\bagent[_ ]name:\s*["'`*]*([A-Za-z][\w-]*)/i,
  /\bSCENARIO-TEAMMATE:([A-Za-z][\w-]*)/,
  /^\s*You are\s+["'`*]*([a-z][\w-]*)["'`*]*(?=[\s.,:;!)])/,
  /^\s*(?:Hi|Hello|Hey)\s+([a-z][\w-]*)\b/i,
];

function findName(value: string): string | undefined {
  for (const pattern of NAME_PATTERNS) {
    const name = pattern.exec(value)?.[1];
    if (name !== undefined && !NOT_NAMES.has(name.toLowerCase())) return name;
  }
  return undefined;
}

/**
 * The agent's name from what the request carries: `team-lead` for a lead (offered `Task` and
 * `TeamCreate`), else a name stated in the system prompt (`agent name: x`, `You are teammate x`)
 * or in the teammate's spawn prompt (`You are alice.`, `Your name is alice`, …). `undefined`
 * when nothing names the agent (a side request, a plain session).
 */
export function agentNameOf(request: ScriptRequest): string | undefined {
  const spawnPrompt = spawnPromptOf(request);
  if (spawnPrompt === undefined && hasTool(request, 'Task') && hasTool(request, 'TeamCreate'))
    return 'team-lead';
  const fromSystem =
    /\b(?:agent[_ ]name:\s*|You are (?:teammate|agent)\s+)["'`*]*([A-Za-z][\w-]*)/i.exec(
      systemText(request),
    )?.[1];
  if (fromSystem !== undefined && !NOT_NAMES.has(fromSystem.toLowerCase())) return fromSystem;
  return spawnPrompt === undefined ? undefined : findName(spawnPrompt);
}
