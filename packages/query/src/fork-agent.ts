// How `createAgent` sets up a fork child from its `fork` option: the request parts come from
// the source unchanged, the conversation is the source's plus the child's first message, and
// tool restrictions apply when a call runs (the `tools` array the model sees never changes, R11).
import type Anthropic from '@anthropic-ai/sdk';
import type { AgentOptions, ConversationMessage } from './agent-types.js';
import {
  checkForkSource,
  forkFirstMessage,
  isInForkChild,
  nestedForkError,
  type ForkRequestFields,
} from './fork.js';
import { resolveModelName } from './model-names.js';
import { QueryError } from './query-error.js';

/** What a fork child's loop uses instead of rendering its own options. */
export interface ForkAgentSetup {
  model: string;
  maxTokens: number;
  system: readonly Anthropic.TextBlockParam[];
  tools: readonly Anthropic.Tool[];
  requestFields: ForkRequestFields;
  /** The source's messages, then the child's first user message (placeholders and directive). */
  messages: ConversationMessage[];
  /** The `is_error` text for a parent tool the child may not run. */
  unknownToolMessage: (name: string) => string | undefined;
}

function refuse(message: string): never {
  throw new QueryError({ code: 'INVALID_OPTIONS', message: `createAgent: ${message}` });
}

/**
 * Checks the options of a fork child and gives its setup. Refuses (`INVALID_OPTIONS`) a
 * `system`, `messages` or `compaction` option (the child's prefix must be its parent's), a model
 * other than the source's, and a tool the parent does not have; a source that is not what
 * `forkSource()` gave is `FORK_UNAVAILABLE`; a source taken inside a fork child `NESTED_FORK`.
 */
export function setUpForkAgent(options: AgentOptions): ForkAgentSetup {
  const fork = options.fork!;
  if (typeof fork !== 'object' || fork === null) {
    refuse('fork must be { source, directive } (source from ToolContext.forkSource()).');
  }
  checkForkSource(fork.source);
  const { source } = fork;
  if (isInForkChild(source.messages)) throw nestedForkError(source.parent.name);
  if (options.system !== undefined) {
    refuse(
      'a fork child uses its parent’s rendered system prompt byte for byte; leave system out.',
    );
  }
  if (options.messages !== undefined) {
    refuse('a fork child starts from its parent’s conversation; leave messages out.');
  }
  if (options.compaction !== undefined) {
    refuse(
      'a fork child is not compacted (its prefix is its parent’s and its life is one directive); leave compaction out.',
    );
  }
  if (options.model !== undefined) {
    const model = resolveModelName(options.model, {
      environment: options.environment ?? process.env,
    });
    if (model !== source.model) {
      refuse(
        `model "${options.model}" is not the parent’s model "${source.model}": a fork must use the parent's model to share its prompt cache; leave model out.`,
      );
    }
  }
  const parentTools = new Set(source.tools.map((tool) => tool.name));
  for (const tool of options.tools) {
    if (!parentTools.has(tool.name)) {
      refuse(
        `tool "${tool.name}" is not one of the parent's tools (${[...parentTools].join(', ')}): a fork child may run a subset of them only.`,
      );
    }
  }
  const allowed = options.tools.map((tool) => tool.name);
  const firstMessage = forkFirstMessage(fork);
  return {
    model: source.model,
    maxTokens: options.maxTokens ?? source.maxTokens,
    system: source.system,
    tools: source.tools,
    requestFields: source.requestFields,
    messages: [...source.messages, firstMessage],
    unknownToolMessage: (name) =>
      parentTools.has(name)
        ? `${name} is not available to this fork: it may run only ${allowed.join(', ') || 'no tools'}. Do the directive with those, or say in your report what needs ${name}.`
        : undefined,
  };
}
