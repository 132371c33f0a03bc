// One agent's conversation as the interactive app shows it, built from the team's events: the
// person's prompts, the model's text (streamed), each tool call collapsed to one entry with
// its result kept for when the person opens it, messages to and from the agent, notices.
// Pure: no terminal, no I/O. Every text stays as the events gave it; the views escape it.
import type { AgentEvent } from '@muster/query';

/** The most entries one conversation keeps (the oldest are dropped, and counted). */
export const CONVERSATION_ENTRY_LIMIT = 400;
/** The most characters one entry's text (or a tool result) keeps; the rest is cut with a note. */
export const ENTRY_TEXT_LIMIT = 20_000;

/** One entry of a conversation. */
export type ConversationEntry =
  /** Something the person typed to this agent (the lead's prompt, or a message to a teammate). */
  | { kind: 'person'; text: string }
  /** The model's reply text; `streaming` while deltas still arrive. */
  | { kind: 'assistant'; text: string; streaming: boolean }
  /** One tool call: its input in one line, and its result once it ended. */
  | {
      kind: 'tool';
      toolUseId: string;
      name: string;
      input: string;
      status: 'running' | 'done' | 'error' | 'denied';
      result?: string;
    }
  /** A message written to or by this agent (plain text or a protocol message). */
  | { kind: 'message'; from: string; to: string; text: string; summary?: string }
  /** A line the runtime or the app reports (a retry, an interrupted turn, a notice). */
  | { kind: 'notice'; level: 'info' | 'warning' | 'error'; text: string };

/** One agent's conversation. */
export interface Conversation {
  entries: readonly ConversationEntry[];
  /** Entries dropped from the front to stay within {@link CONVERSATION_ENTRY_LIMIT}. */
  dropped: number;
  /** A turn of this agent is running. */
  turnRunning: boolean;
}

/** A conversation with nothing in it. */
export const EMPTY_CONVERSATION: Conversation = { entries: [], dropped: 0, turnRunning: false };

/** Cuts text to {@link ENTRY_TEXT_LIMIT} characters, saying how much was cut. */
export function capEntryText(text: string): string {
  if (text.length <= ENTRY_TEXT_LIMIT) return text;
  return `${text.slice(0, ENTRY_TEXT_LIMIT)}\n… (${text.length - ENTRY_TEXT_LIMIT} more characters not shown)`;
}

/** A tool call's input as one short line: its most telling field, else compact JSON. */
export function summarizeToolInput(input: unknown): string {
  if (input === null || typeof input !== 'object') return input === undefined ? '' : String(input);
  const record = input as Record<string, unknown>;
  for (const key of [
    'command',
    'file_path',
    'path',
    'pattern',
    'subject',
    'description',
    'recipient',
    'team_name',
    'name',
    'taskId',
    'url',
    'query',
  ]) {
    const value = record[key];
    if (typeof value === 'string' && value !== '') return value.slice(0, 300);
  }
  let json: string;
  try {
    json = JSON.stringify(input) ?? '';
  } catch {
    json = '[input that cannot be shown]';
  }
  return json.length > 300 ? `${json.slice(0, 299)}…` : json;
}

/** Appends entries, dropping the oldest beyond the limit. */
export function appendEntries(
  conversation: Conversation,
  ...entries: ConversationEntry[]
): Conversation {
  const all = [...conversation.entries, ...entries];
  const excess = Math.max(0, all.length - CONVERSATION_ENTRY_LIMIT);
  return {
    ...conversation,
    entries: excess === 0 ? all : all.slice(excess),
    dropped: conversation.dropped + excess,
  };
}

function replaceLast(
  conversation: Conversation,
  find: (entry: ConversationEntry) => boolean,
  update: (entry: ConversationEntry) => ConversationEntry,
): Conversation | undefined {
  for (let index = conversation.entries.length - 1; index >= 0; index -= 1) {
    const entry = conversation.entries[index];
    if (entry !== undefined && find(entry)) {
      const entries = [...conversation.entries];
      entries[index] = update(entry);
      return { ...conversation, entries };
    }
  }
  return undefined;
}

function endStreaming(conversation: Conversation): Conversation {
  const last = conversation.entries.at(-1);
  if (last?.kind !== 'assistant' || !last.streaming) return conversation;
  return {
    ...conversation,
    entries: [...conversation.entries.slice(0, -1), { ...last, streaming: false }],
  };
}

function assistantText(message: Extract<AgentEvent, { type: 'assistant_message' }>['message']) {
  return message.content
    .map((block) => (block.type === 'text' ? block.text : ''))
    .join('')
    .trim();
}

/** The conversation after one of the agent's loop events. */
export function applyAgentEvent(conversation: Conversation, event: AgentEvent): Conversation {
  switch (event.type) {
    case 'turn_start':
      return { ...conversation, turnRunning: true };
    case 'text_delta': {
      const last = conversation.entries.at(-1);
      if (last?.kind === 'assistant' && last.streaming) {
        return {
          ...conversation,
          entries: [
            ...conversation.entries.slice(0, -1),
            { ...last, text: capEntryText(last.text + event.text) },
          ],
        };
      }
      return appendEntries(conversation, {
        kind: 'assistant',
        text: capEntryText(event.text),
        streaming: true,
      });
    }
    case 'assistant_message': {
      // The whole message replaces what streamed (a reply that did not stream shows too).
      const text = assistantText(event.message);
      const last = conversation.entries.at(-1);
      if (last?.kind === 'assistant' && last.streaming) {
        const entries = conversation.entries.slice(0, -1);
        return text === ''
          ? { ...conversation, entries }
          : {
              ...conversation,
              entries: [
                ...entries,
                { kind: 'assistant', text: capEntryText(text), streaming: false },
              ],
            };
      }
      return text === ''
        ? conversation
        : appendEntries(conversation, {
            kind: 'assistant',
            text: capEntryText(text),
            streaming: false,
          });
    }
    case 'tool_call_start':
      return appendEntries(endStreaming(conversation), {
        kind: 'tool',
        toolUseId: event.toolUseId,
        name: event.name,
        input: summarizeToolInput(event.input),
        status: 'running',
      });
    case 'tool_call_end': {
      const status = !event.allowed ? 'denied' : event.isError ? 'error' : 'done';
      const ended = (entry: ConversationEntry): ConversationEntry =>
        entry.kind === 'tool'
          ? { ...entry, status, result: capEntryText(event.resultText) }
          : entry;
      return (
        replaceLast(
          conversation,
          (entry) => entry.kind === 'tool' && entry.toolUseId === event.toolUseId,
          ended,
        ) ??
        appendEntries(conversation, {
          kind: 'tool',
          toolUseId: event.toolUseId,
          name: event.name,
          input: '',
          status,
          result: capEntryText(event.resultText),
        })
      );
    }
    case 'retry':
      return appendEntries(conversation, {
        kind: 'notice',
        level: 'warning',
        text: `retrying the request (attempt ${event.attempt}, ${event.kind}): ${event.message}`,
      });
    case 'compaction':
      return appendEntries(conversation, {
        kind: 'notice',
        level: 'info',
        text: `conversation compacted: ${event.tokensBefore} → ${event.tokensAfter} tokens`,
      });
    case 'turn_end': {
      const done = { ...endStreaming(conversation), turnRunning: false };
      if (event.reason === 'completed') return done;
      const why =
        event.reason === 'aborted'
          ? 'the turn was interrupted'
          : event.reason === 'failed'
            ? `the turn failed: ${event.error?.message ?? 'no reason given'}`
            : `the turn ended: ${event.reason}`;
      return appendEntries(done, {
        kind: 'notice',
        level: event.reason === 'failed' ? 'error' : 'warning',
        text: why,
      });
    }
    default:
      return conversation;
  }
}

/** A tool input for the person deciding: one `field: value` line per field, strings as they are. */
export function describeToolInput(input: Record<string, unknown> | undefined): string | undefined {
  if (input === undefined) return undefined;
  const lines: string[] = [];
  for (const [key, value] of Object.entries(input)) {
    let shown: string;
    if (typeof value === 'string') shown = value;
    else {
      try {
        shown = JSON.stringify(value) ?? String(value);
      } catch {
        shown = '[a value that cannot be shown]';
      }
    }
    lines.push(`${key}: ${shown}`);
  }
  const text = lines.join('\n');
  return text.length > 4_000
    ? `${text.slice(0, 4_000)}\n… (${text.length - 4_000} more characters)`
    : text;
}
