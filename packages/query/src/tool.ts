// The one interface every tool of a muster agent implements, and what a tool call gets to
// work with. @muster/query runs tools only through this interface; @muster/tools (and any
// program embedding the loop) implements it.
import type { z } from 'zod';
import type { ForkSource } from './fork.js';

/** A text block of a tool result. */
export interface ToolResultTextBlock {
  type: 'text';
  text: string;
}

/** An image block of a tool result (base64 data, as the Messages API takes it). */
export interface ToolResultImageBlock {
  type: 'image';
  source: { type: 'base64'; media_type: string; data: string };
}

/** What a tool call gives back to the model. */
export interface ToolResult {
  /** The `tool_result` content: a string or text/image blocks. */
  content: string | Array<ToolResultTextBlock | ToolResultImageBlock>;
  /** True when the call failed; the model sees `is_error: true`. */
  isError?: boolean;
  /** Structured data for programs and UIs (never sent to the model). */
  data?: unknown;
}

/** The directories an agent's tools may touch, by kind of access (absolute, real paths). */
export interface ToolRoots {
  /** Directories (and single files) a tool may read inside. */
  read: readonly string[];
  /** Directories (and single files) a tool may create, change or delete inside. */
  write: readonly string[];
}

/** Who is calling: the agent whose model asked for the tool. */
export interface ToolAgentIdentity {
  /** The agent's name (`team-lead`, `alice`, a subagent's id). */
  name: string;
  /** A stable id for this agent (e.g. `alice@my-team`). */
  id: string;
  /** The team it belongs to, when it is in one. */
  teamName?: string;
}

/**
 * A per-agent store tools keep state in between calls (which files were read and when, the
 * agent's background shells, …). One store per agent, created by the loop, dropped when the
 * agent closes.
 */
export interface ToolStateStore {
  /** The value under `key`, created by `create` on first use. */
  get<Value>(key: symbol, create: () => Value): Value;
}

/** What a tool call gets besides its input. Built by the loop for every call. */
export interface ToolContext {
  /** The calling agent. */
  agent: ToolAgentIdentity;
  /** The agent's working directory (absolute). Relative paths resolve against it; never `process.chdir`. */
  cwd: string;
  /** Where this call may read and write (the permission context's working directories, team paths, plan file, and paths a person approved for this very call). */
  roots: ToolRoots;
  /** Aborted when the turn is interrupted or the agent ends: stop work, end child processes. */
  signal: AbortSignal;
  /** The `tool_use` id of this call. */
  toolUseId: string;
  /** The agent's tool state. */
  state: ToolStateStore;
  /**
   * Registers work to undo when the agent closes (a background shell to kill, a temp file to
   * remove). Returns a function that unregisters it (call it when the work ended by itself).
   */
  onAgentClose(dispose: () => void | Promise<void>): () => void;
  /**
   * The environment child processes start from: the process environment with every model
   * credential removed (`ANTHROPIC_API_KEY`, `ANTHROPIC_AUTH_TOKEN`, … see `scrubEnvironment`).
   */
  environment: Readonly<Record<string, string>>;
  /**
   * What a fork of the calling agent needs (R11): its rendered system prompt and tools, model,
   * caching-relevant request fields and the conversation up to the assistant message whose
   * tool is running, all frozen. Throws `QueryError('NESTED_FORK')` inside a fork child (R13).
   * Absent when the loop running the tool cannot fork.
   */
  forkSource?(): ForkSource;
}

/** One tool. `Input` is what `inputSchema` parses to. */
export interface Tool<Input = Record<string, unknown>> {
  /** The name the model calls (`Read`, `Bash`, `SendMessage`). Unique in an agent's tool set. */
  readonly name: string;
  /** What the model is told the tool does (muster's own words). */
  readonly description: string;
  /** The input schema (a zod object); a call whose input fails it never runs. */
  readonly inputSchema: z.ZodType<Input>;
  /**
   * The JSON Schema sent to the model. Optional: by default `z.toJSONSchema(inputSchema)`
   * without `$schema`. Give it when the bytes must match another runtime's.
   */
  readonly inputJsonSchema?: Record<string, unknown>;
  /** Whether this call only reads (decides permissions and plan mode). */
  isReadOnly(input: Input): boolean;
  /** Whether this call may run in parallel with the other concurrency-safe calls of one response. */
  isConcurrencySafe(input: Input): boolean;
  /** The paths (as given, may be relative) this call reads or writes, for permission checks and UIs. */
  pathsOf?(input: Input): string[];
  /** Runs the call. Throwing a `ToolError` (or anything) becomes an `is_error` result; it never crashes the loop. */
  call(input: Input, context: ToolContext): Promise<ToolResult>;
}

/** A tool of any input type, as tool lists hold them. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyTool = Tool<any>;
