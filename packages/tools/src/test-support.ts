// Test support for @muster/tools (not exported from index.ts): a ToolContext built the way the
// loop builds one, without the loop. Any test of this package may import it.
import { readFileSync } from 'node:fs';
import { mkdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ToolError, type ToolContext, type ToolRoots, type ToolStateStore } from '@muster/query';
import { makeTempDirectory } from '@muster/test-utils';
import { expect } from 'vitest';
import { createReadTool } from './read-tool.js';

/** The folder of Claude Code 2.1.45's tool input schemas, copied into this repository's fixtures/. */
const CLAUDE_CODE_TOOL_SCHEMAS = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../fixtures/claude-code-2.1.45-all-tools',
);

/** What `createTestToolContext` gives back: the context plus handles on its parts. */
export interface TestToolContext {
  /** The context to pass to `tool.call(input, context)`. */
  context: ToolContext;
  /** Aborts `context.signal` (as an interrupted turn would). */
  abort(reason?: unknown): void;
  /** Runs every disposer registered through `context.onAgentClose` (as `agent.close()` would). */
  closeAgent(): Promise<void>;
  /** How many disposers are registered right now. */
  pendingDisposers(): number;
}

/** Options of `createTestToolContext`; everything but `cwd` has a default. */
export interface TestToolContextOptions {
  /** The working directory (absolute). */
  cwd: string;
  /** Read and write roots; default: both are `[cwd]`. */
  roots?: Partial<ToolRoots>;
  /** Share one state store between contexts (the same agent across calls); default: a new one. */
  state?: ToolStateStore;
  /** The environment child processes get; default: `{ PATH, HOME }` of this process. */
  environment?: Record<string, string>;
  /** The `tool_use` id; default `toolu_test_1`. */
  toolUseId?: string;
  /** The agent's name; default `tester`. */
  agentName?: string;
}

/** A state store like the loop's: one value per key, created on first use. */
export function createTestStateStore(): ToolStateStore {
  const values = new Map<symbol, unknown>();
  return {
    get<Value>(key: symbol, create: () => Value): Value {
      if (!values.has(key)) values.set(key, create());
      return values.get(key) as Value;
    },
  };
}

/** Builds a ToolContext for tests: roots default to the working directory, a fresh abort signal. */
export function createTestToolContext(options: TestToolContextOptions): TestToolContext {
  const controller = new AbortController();
  const disposers = new Set<() => void | Promise<void>>();
  const environment: Record<string, string> = options.environment ?? {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/',
  };
  const agentName = options.agentName ?? 'tester';
  const context: ToolContext = {
    agent: { name: agentName, id: `${agentName}@test` },
    cwd: options.cwd,
    roots: {
      read: options.roots?.read ?? [options.cwd],
      write: options.roots?.write ?? [options.cwd],
    },
    signal: controller.signal,
    toolUseId: options.toolUseId ?? 'toolu_test_1',
    state: options.state ?? createTestStateStore(),
    onAgentClose(dispose) {
      disposers.add(dispose);
      return () => {
        disposers.delete(dispose);
      };
    },
    environment,
  };
  return {
    context,
    abort: (reason) => controller.abort(reason),
    async closeAgent() {
      const pending = [...disposers];
      disposers.clear();
      await Promise.allSettled(pending.map(async (dispose) => dispose()));
    },
    pendingDisposers: () => disposers.size,
  };
}

/** The parts of a tool's JSON Schema that must equal Claude Code's: field names, types, enums, required, additionalProperties. */
export interface ToolSchemaShape {
  /** Each property's `type` and `enum` (descriptions and defaults left out). */
  properties: Record<string, { type: unknown; enum: unknown; items: unknown }>;
  /** The `required` list, sorted. */
  required: string[];
  /** `additionalProperties` as given. */
  additionalProperties: unknown;
}

/** The comparable shape of a JSON Schema object (compare two with `toEqual`). */
export function toolSchemaShape(schema: Record<string, unknown> | undefined): ToolSchemaShape {
  const properties = (schema?.properties ?? {}) as Record<string, Record<string, unknown>>;
  return {
    properties: Object.fromEntries(
      Object.entries(properties).map(([name, value]) => [
        name,
        {
          type: value.type,
          enum: value.enum,
          items: (value.items as { type?: unknown } | undefined)?.type,
        },
      ]),
    ),
    required: [...((schema?.required as string[] | undefined) ?? [])].sort(),
    additionalProperties: schema?.additionalProperties,
  };
}

/** Claude Code 2.1.45's input schema of tool `name` (from `fixtures/claude-code-2.1.45-all-tools`). */
export function claudeCodeToolSchema(name: string): Record<string, unknown> {
  return JSON.parse(
    readFileSync(path.join(CLAUDE_CODE_TOOL_SCHEMAS, `${name}.input_schema.json`), 'utf8'),
  ) as Record<string, unknown>;
}

/** A fresh temporary tree, as real paths: `<base>/project` and `<base>/outside`, both created. */
export async function makeProjectTree(
  prefix: string,
): Promise<{ base: string; project: string; outside: string }> {
  const base = await realpath(await makeTempDirectory(prefix));
  const project = path.join(base, 'project');
  const outside = path.join(base, 'outside');
  await mkdir(project);
  await mkdir(outside);
  return { base, project, outside };
}

/**
 * What the file-tool tests start from: a {@link makeProjectTree} tree, a test ToolContext whose
 * working directory and roots are `project`, and `read(file_path, { offset, limit })`, which
 * calls the Read tool in that context (the other file tools want a file read first).
 */
export async function openFileToolTest(prefix: string) {
  const tree = await makeProjectTree(prefix);
  const test = createTestToolContext({ cwd: tree.project });
  const readTool = createReadTool();
  return {
    ...tree,
    ...test,
    read: (file_path: string, extra: { offset?: number; limit?: number } = {}) =>
      readTool.call({ file_path, ...extra }, test.context),
  };
}

/** Awaits `promise`, which must reject with a `ToolError`, and returns that error. */
export async function toolRefusal(
  promise: Promise<unknown>,
  what = 'the tool',
): Promise<ToolError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ToolError);
    return error as ToolError;
  }
  throw new Error(`expected ${what} to refuse, but it accepted`);
}
