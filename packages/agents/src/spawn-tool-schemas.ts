// The input schemas of the spawn tool in its two dialects (`Task` as Claude Code 2.1.45 offers
// it, `Agent` as 2.1.330 does) and of the background-task tools `TaskOutput` / `TaskStop`
// (2.1.45). The JSON Schemas are what the model is sent, property for property the same as the
// reference runtimes' (the tests compare them with copies in fixtures/).
import { z } from 'zod';

/** Which runtime's spawn tool to offer: `Task` (2.1.45) or `Agent` (2.1.330). */
export type SpawnToolDialect = '2.1.45' | '2.1.330';

const taskModels = ['sonnet', 'opus', 'haiku'] as const;
const agentModels = ['sonnet', 'opus', 'haiku', 'fable'] as const;
const taskModes = [
  'acceptEdits',
  'bypassPermissions',
  'default',
  'delegate',
  'dontAsk',
  'plan',
] as const;
const agentModes = [
  'acceptEdits',
  'auto',
  'bypassPermissions',
  'default',
  'dontAsk',
  'plan',
] as const;
const efforts = ['low', 'medium', 'high', 'xhigh', 'max'] as const;
/** The teammate name pattern of the 2.1.330 `Agent` tool. */
export const AGENT_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** The `Task` tool's input (2.1.45). */
export const TaskInputSchema = z.strictObject({
  description: z.string(),
  prompt: z.string(),
  subagent_type: z.string(),
  model: z.enum(taskModels).optional(),
  resume: z.string().optional(),
  run_in_background: z.boolean().optional(),
  max_turns: z.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional(),
  name: z.string().optional(),
  team_name: z.string().optional(),
  mode: z.enum(taskModes).optional(),
});

/** The `Agent` tool's input (2.1.330): `subagent_type` left out means a fork. */
export const AgentInputSchema = z.strictObject({
  description: z.string(),
  prompt: z.string(),
  subagent_type: z.string().optional(),
  model: z.enum(agentModels).optional(),
  effort: z.enum(efforts).optional(),
  name: z.string().regex(AGENT_NAME_PATTERN).optional(),
  team_name: z.string().optional(),
  mode: z.enum(agentModes).optional(),
  isolation: z.enum(['worktree', 'remote']).optional(),
});

/** One call of the spawn tool, either dialect (fields the dialect lacks are absent). */
export type SpawnInput = z.infer<typeof TaskInputSchema> | z.infer<typeof AgentInputSchema>;

const stringType = { type: 'string' } as const;

/** The JSON Schema of `Task` sent to the model (2.1.45's, without `$schema`). */
export const TASK_INPUT_JSON_SCHEMA: Record<string, unknown> = {
  type: 'object',
  properties: {
    description: stringType,
    prompt: stringType,
    subagent_type: stringType,
    model: { type: 'string', enum: [...taskModels] },
    resume: stringType,
    run_in_background: { type: 'boolean' },
    max_turns: { type: 'integer', exclusiveMinimum: 0, maximum: Number.MAX_SAFE_INTEGER },
    name: stringType,
    team_name: stringType,
    mode: { type: 'string', enum: [...taskModes] },
  },
  required: ['description', 'prompt', 'subagent_type'],
  additionalProperties: false,
};

/** The JSON Schema of `Agent` sent to the model (2.1.330's, without `$schema`). */
export const AGENT_INPUT_JSON_SCHEMA: Record<string, unknown> = {
  type: 'object',
  properties: {
    description: stringType,
    prompt: stringType,
    subagent_type: stringType,
    model: { type: 'string', enum: [...agentModels] },
    effort: { type: 'string', enum: [...efforts] },
    name: { type: 'string', pattern: AGENT_NAME_PATTERN.source },
    team_name: stringType,
    mode: { type: 'string', enum: [...agentModes] },
    isolation: { type: 'string', enum: ['worktree', 'remote'] },
  },
  required: ['description', 'prompt'],
  additionalProperties: false,
};

/** The `TaskOutput` tool's input (2.1.45): `block` and `timeout` (ms) have defaults. */
export const TaskOutputInputSchema = z.strictObject({
  task_id: z.string(),
  block: z.boolean().default(true),
  timeout: z.number().min(0).max(600_000).default(30_000),
});

/** The JSON Schema of `TaskOutput` sent to the model (2.1.45's, without `$schema`). */
export const TASK_OUTPUT_INPUT_JSON_SCHEMA: Record<string, unknown> = {
  type: 'object',
  properties: {
    task_id: stringType,
    block: { default: true, type: 'boolean' },
    timeout: { default: 30_000, type: 'number', minimum: 0, maximum: 600_000 },
  },
  required: ['task_id', 'block', 'timeout'],
  additionalProperties: false,
};

/** The `TaskStop` tool's input (2.1.45): `shell_id` is the deprecated name of `task_id`. */
export const TaskStopInputSchema = z.strictObject({
  task_id: z.string().optional(),
  shell_id: z.string().optional(),
});

/** The JSON Schema of `TaskStop` sent to the model (2.1.45's, without `$schema`). */
export const TASK_STOP_INPUT_JSON_SCHEMA: Record<string, unknown> = {
  type: 'object',
  properties: { task_id: stringType, shell_id: stringType },
  additionalProperties: false,
};
