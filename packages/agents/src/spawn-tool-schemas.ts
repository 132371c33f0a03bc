// The input schemas of the spawn tool in its two dialects (`Task` as Claude Code 2.1.45 offers
// it, `Agent` as 2.1.330 does) and of the background-task tools `TaskOutput` / `TaskStop`
// (2.1.45). The JSON Schemas are what the model is sent, property for property the same as the
// reference runtimes' (the tests compare them with copies in fixtures/).
import {
  AGENT_EFFORT_LEVELS,
  AGENT_MODEL_ALIASES_V2,
  AGENT_MODES_V2,
  AgentInputSchema as ProtocolTaskInputSchema,
  AgentInputV2Schema,
} from '@muster/protocol';
import { z } from 'zod';

/** Which runtime's spawn tool to offer: `Task` (2.1.45) or `Agent` (2.1.330). */
export type SpawnToolDialect = '2.1.45' | '2.1.330';

const taskModels = ['sonnet', 'opus', 'haiku'] as const;
const agentModels = AGENT_MODEL_ALIASES_V2;
const taskModes = [
  'acceptEdits',
  'bypassPermissions',
  'default',
  'delegate',
  'dontAsk',
  'plan',
] as const;
const agentModes = AGENT_MODES_V2;
const efforts = AGENT_EFFORT_LEVELS;
/** The teammate name pattern of the 2.1.330 `Agent` tool. */
export const AGENT_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** The `Task` tool's input (2.1.45): protocol's `AgentInputSchema` (with its extra rules). */
export const TaskInputSchema = ProtocolTaskInputSchema;

/** The `Agent` tool's input (2.1.330): protocol's `AgentInputV2Schema`; no `subagent_type` means a fork. */
export const AgentInputSchema = AgentInputV2Schema;

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
