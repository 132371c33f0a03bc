// Reads a transcript back, for UIs and to resume an agent. A torn line (a crash mid-write) is
// skipped and reported, never fatal.
import type Anthropic from '@anthropic-ai/sdk';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { ConversationMessage } from './agent-types.js';
import { QueryError } from './query-error.js';
import type { ToolAgentIdentity } from './tool.js';
import type { TranscriptEntry } from './transcript.js';

const UsageSchema = z.looseObject({
  inputTokens: z.number(),
  cacheCreationInputTokens: z.number(),
  cacheReadInputTokens: z.number(),
  outputTokens: z.number(),
});

const EntrySchema = z.discriminatedUnion('type', [
  z.looseObject({
    type: z.literal('agent'),
    identity: z.looseObject({ name: z.string(), id: z.string(), teamName: z.string().optional() }),
    model: z.string(),
    at: z.string(),
  }),
  z.looseObject({
    type: z.literal('message'),
    role: z.enum(['user', 'assistant', 'system']),
    content: z.union([z.string(), z.array(z.looseObject({ type: z.string() }))]),
    at: z.string(),
    requestId: z.string().optional(),
    usage: UsageSchema.optional(),
    stopReason: z.string().nullable().optional(),
  }),
  z.looseObject({
    type: z.literal('compaction'),
    summary: z.string(),
    at: z.string(),
    tokensBefore: z.number().optional(),
    tokensAfter: z.number().optional(),
  }),
]);

/** A line `readTranscript` could not use. */
export interface SkippedTranscriptLine {
  /** 1-based line number. */
  line: number;
  /** Why it was skipped. */
  reason: string;
  /** Whether it is the last line (a write torn by a crash). */
  last: boolean;
}

/** What `readTranscript` returns. */
export interface TranscriptContents {
  /** The conversation to resume from: the messages after the last compaction, in order. */
  messages: ConversationMessage[];
  /** Every valid entry, in file order. */
  entries: TranscriptEntry[];
  /** The first `agent` entry, when there is one. */
  agent?: { identity: ToolAgentIdentity; model: string };
  /** Lines that were not valid entries (a torn last line, a corrupted line). */
  skipped: SkippedTranscriptLine[];
  /**
   * `tool_use` ids of the last assistant message that no later `tool_result` answers (the
   * process ended while tools ran). A resumed agent must answer them before its next request.
   */
  unansweredToolUseIds: string[];
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.join('.') || '(entry)'}: ${issue.message}`)
    .join('; ');
}

function unansweredToolUses(messages: readonly ConversationMessage[]): string[] {
  let lastAssistant = -1;
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    if (messages[index]!.role === 'assistant') {
      lastAssistant = index;
      break;
    }
  }
  if (lastAssistant < 0) return [];
  const content = messages[lastAssistant]!.content;
  if (typeof content === 'string') return [];
  const answered = new Set<string>();
  for (const message of messages.slice(lastAssistant + 1)) {
    if (typeof message.content === 'string') continue;
    for (const block of message.content) {
      if (block.type === 'tool_result') answered.add(block.tool_use_id);
    }
  }
  return content
    .filter((block) => block.type === 'tool_use' && !answered.has(block.id))
    .map((block) => (block as { id: string }).id);
}

function asBlocks(content: ConversationMessage['content']): Anthropic.ContentBlockParam[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : [...content];
}

/**
 * Adds a message entry to the conversation. Entries of the same role in a row are one message
 * (the loop writes the blocks it adds to a user message that is already in the transcript as
 * an entry of their own), so their contents are joined as blocks.
 */
function appendMessage(
  messages: ConversationMessage[],
  role: ConversationMessage['role'],
  content: ConversationMessage['content'],
): void {
  const last = messages.at(-1);
  if (last && last.role === role) {
    messages[messages.length - 1] = {
      role,
      content: [...asBlocks(last.content), ...asBlocks(content)],
    } as ConversationMessage;
    return;
  }
  messages.push({ role, content } as ConversationMessage);
}

/**
 * Reads a transcript written by `createTranscript`. Lines that are not valid entries are skipped
 * and listed in `skipped` (with their line number), never fatal. A `compaction` entry starts the
 * conversation over: `messages` holds the message entries after the last one, consecutive
 * entries of one role joined into one message (their contents as blocks). Throws
 * `TRANSCRIPT_FAILED` naming the file when it cannot be read.
 */
export function readTranscript(file: string): TranscriptContents {
  if (typeof file !== 'string' || file === '') {
    throw new QueryError({
      code: 'INVALID_OPTIONS',
      message: `readTranscript: the path must be a non-empty file path, got ${JSON.stringify(file)}`,
    });
  }
  const absolute = path.resolve(file);
  let text: string;
  try {
    text = readFileSync(absolute, 'utf8');
  } catch (error) {
    throw new QueryError({
      code: 'TRANSCRIPT_FAILED',
      message: `Cannot read the transcript ${absolute}: ${error instanceof Error ? error.message : String(error)}`,
    });
  }
  const lines = text.split('\n');
  const lastLine = lines.findLastIndex((line) => line.trim() !== '');
  const contents: TranscriptContents = {
    messages: [],
    entries: [],
    skipped: [],
    unansweredToolUseIds: [],
  };
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    const skip = (reason: string): void => {
      contents.skipped.push({ line: index + 1, reason, last: index === lastLine });
    };
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      skip(`not JSON (${error instanceof Error ? error.message : String(error)})`);
      return;
    }
    const parsed = EntrySchema.safeParse(value);
    if (!parsed.success) {
      skip(`not a transcript entry (${describeIssues(parsed.error)})`);
      return;
    }
    const entry = value as TranscriptEntry;
    contents.entries.push(entry);
    if (entry.type === 'agent') {
      contents.agent ??= { identity: entry.identity, model: entry.model };
    } else if (entry.type === 'compaction') {
      contents.messages = [];
    } else {
      appendMessage(contents.messages, entry.role, entry.content);
    }
  });
  contents.unansweredToolUseIds = unansweredToolUses(contents.messages);
  return contents;
}
