import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { buildSchema } from '../scripts/schema-generation.js';
import { createStrictAjv } from '../test/ajv.js';
import { sampleObjects } from '../test/json-schema-samples.js';
import { referenceFolder } from '../test/reference-folder.js';
import {
  AgentInputSchema,
  SendMessageInputSchema,
  TaskCreateInputSchema,
  TaskGetInputSchema,
  TaskUpdateInputSchema,
  TeamCreateInputSchema,
  TOOL_NAMES,
  type ToolName,
} from './tools.js';
import { TOOL_INPUT_SCHEMAS, type WireTypeName } from './wire-types.js';

/** Issues as `path: message`, for readable assertions. */
function issuesOf(schema: z.ZodType, input: unknown): string[] {
  const result = schema.safeParse(input);
  return result.success
    ? []
    : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
}

describe('SendMessage input', () => {
  it('accepts every sensible call', () => {
    for (const input of [
      { type: 'message', recipient: 'alpha', content: 'hi', summary: 'Say hi' },
      { type: 'message', recipient: 'alpha@conf-team', content: 'hi' },
      { type: 'broadcast', content: 'stop', summary: 'Stop' },
      { type: 'shutdown_request', recipient: 'alpha' },
      { type: 'shutdown_request', recipient: 'alpha', content: 'All done' },
      { type: 'shutdown_response', request_id: 'shutdown-1@alpha', approve: true },
      {
        type: 'shutdown_response',
        request_id: 'shutdown-1@alpha',
        approve: false,
        content: 'Busy',
      },
      { type: 'plan_approval_response', request_id: 'p', recipient: 'beta', approve: true },
      {
        type: 'plan_approval_response',
        request_id: 'p',
        recipient: 'beta',
        approve: false,
        content: 'Cover the empty case',
      },
    ]) {
      expect(issuesOf(SendMessageInputSchema, input), JSON.stringify(input)).toEqual([]);
    }
  });

  it.each([
    [
      { type: 'shutdown_response', approve: true },
      ['request_id: a shutdown_response needs the request_id of the shutdown_request'],
    ],
    [
      { type: 'shutdown_response', request_id: 'shutdown-1@alpha', approve: false },
      ['content: rejecting a shutdown needs a reason in content'],
    ],
    [
      { type: 'shutdown_response', request_id: 'shutdown-1@alpha', approve: false, content: '  ' },
      ['content: rejecting a shutdown needs a reason in content'],
    ],
    [
      { type: 'shutdown_response', request_id: 'shutdown-1@alpha' },
      ['approve: a shutdown_response needs approve: true or false'],
    ],
    [
      { type: 'plan_approval_response', request_id: 'p', recipient: 'beta', approve: false },
      ['content: rejecting a plan needs feedback in content saying what to change'],
    ],
    [
      { type: 'plan_approval_response', approve: true },
      [
        'request_id: a plan_approval_response needs the request_id of the plan request',
        'recipient: a plan_approval_response needs the recipient (the teammate)',
      ],
    ],
    [
      { type: 'message', content: 'hi' },
      ['recipient: a message needs a recipient (an agent name in the team)'],
    ],
    [{ type: 'message', recipient: 'alpha' }, ['content: a message needs content']],
    [
      { type: 'broadcast', recipient: 'alpha', content: 'x' },
      ['recipient: a broadcast goes to every member: drop recipient, or use type "message"'],
    ],
    [
      { type: 'shutdown_request' },
      ['recipient: a shutdown_request needs the recipient to shut down'],
    ],
  ])('refuses %j with a clear reason', (input, expected) => {
    expect(issuesOf(SendMessageInputSchema, input)).toEqual(expected);
  });

  it('refuses unknown keys and unknown types (strict)', () => {
    expect(
      issuesOf(SendMessageInputSchema, { type: 'message', recipient: 'a', content: 'b', to: 'c' }),
    ).toEqual([': Unrecognized key: "to"']);
    expect(
      issuesOf(SendMessageInputSchema, { type: 'dm', recipient: 'a', content: 'b' })[0],
    ).toMatch(/^type: /);
  });
});

describe('TaskUpdate input', () => {
  it('refuses a task that depends on itself, naming the field', () => {
    expect(issuesOf(TaskUpdateInputSchema, { taskId: '3', addBlockedBy: ['1', '3'] })).toEqual([
      'addBlockedBy: task 3 cannot depend on itself: remove it from addBlockedBy',
    ]);
    expect(issuesOf(TaskUpdateInputSchema, { taskId: '3', addBlocks: ['3'] })).toEqual([
      'addBlocks: task 3 cannot depend on itself: remove it from addBlocks',
    ]);
  });

  it('accepts deletion, unassigning and metadata merges', () => {
    for (const input of [
      { taskId: '3', status: 'deleted' },
      { taskId: '3', owner: '' },
      { taskId: '3', metadata: { priority: null, estimate: 2 } },
      { taskId: '3', addBlocks: ['4'], addBlockedBy: ['1'], status: 'in_progress', owner: 'alpha' },
    ]) {
      expect(issuesOf(TaskUpdateInputSchema, input)).toEqual([]);
    }
  });

  it('refuses an empty task id and a blank new subject', () => {
    expect(issuesOf(TaskUpdateInputSchema, { taskId: '' })).toEqual([
      'taskId: taskId must not be empty',
    ]);
    expect(issuesOf(TaskUpdateInputSchema, { taskId: '1', subject: ' ' })).toEqual([
      'subject: subject must not be empty when given',
    ]);
  });
});

describe('other tool inputs', () => {
  it('refuse blank names, subjects and ids', () => {
    expect(issuesOf(TeamCreateInputSchema, { team_name: ' ' })).toEqual([
      'team_name: team_name must not be empty',
    ]);
    expect(issuesOf(TaskCreateInputSchema, { subject: '', description: '' })).toEqual([
      'subject: subject must not be empty',
    ]);
    expect(issuesOf(TaskGetInputSchema, { taskId: '' })).toEqual([
      'taskId: taskId must not be empty',
    ]);
  });

  it('spawn: a teammate needs a name; resume is only for subagents', () => {
    const base = {
      description: 'Research',
      prompt: 'Look into it',
      subagent_type: 'general-purpose',
    };
    expect(issuesOf(AgentInputSchema, { ...base, name: 'alpha', team_name: 'conf-team' })).toEqual(
      [],
    );
    expect(issuesOf(AgentInputSchema, { ...base, name: 'alpha' })).toEqual([]);
    expect(issuesOf(AgentInputSchema, { ...base, isolation: 'worktree', mode: 'plan' })).toEqual(
      [],
    );
    expect(issuesOf(AgentInputSchema, { ...base, team_name: 'conf-team' })).toEqual([
      'name: team_name spawns a teammate, which needs a name: add name, or drop team_name',
    ]);
    expect(issuesOf(AgentInputSchema, { ...base, resume: 'agent-1', name: 'alpha' })).toEqual([
      'resume: resume continues an earlier subagent and cannot be combined with name or team_name (teammates are never resumed)',
    ]);
    expect(issuesOf(AgentInputSchema, { ...base, prompt: '' })).toEqual([
      'prompt: prompt must not be empty',
    ]);
    expect(issuesOf(AgentInputSchema, { ...base, max_turns: 0 })[0]).toMatch(/^max_turns: /);
    expect(issuesOf(AgentInputSchema, { ...base, isolation: 'container' })[0]).toMatch(
      /^isolation: /,
    );
  });
});

// ---------------------------------------------------------------------------------------
// Every input Claude Code 2.1.45's own tool schemas accept is accepted, except the
// nonsense combinations listed below (which PROTOCOL.md lists too).

const blank = (value: unknown) => typeof value === 'string' && value.trim() === '';
const missingOrBlank = (value: unknown) => value === undefined || blank(value);

/** The fields muster refuses in an input Claude Code's schema accepts. */
function expectedRefusals(tool: ToolName, input: Record<string, unknown>): string[] {
  const refused: string[] = [];
  const need = (field: string) => {
    if (missingOrBlank(input[field])) refused.push(field);
  };
  switch (tool) {
    case 'TeamCreate':
      need('team_name');
      break;
    case 'TaskCreate':
      need('subject');
      break;
    case 'TaskGet':
      need('taskId');
      break;
    case 'TaskUpdate':
      need('taskId');
      if (blank(input.subject)) refused.push('subject');
      for (const field of ['addBlocks', 'addBlockedBy']) {
        if ((input[field] as unknown[] | undefined)?.includes(input.taskId)) refused.push(field);
      }
      break;
    case 'SendMessage':
      switch (input.type) {
        case 'message':
          need('recipient');
          need('content');
          break;
        case 'broadcast':
          need('content');
          if (input.recipient !== undefined) refused.push('recipient');
          break;
        case 'shutdown_request':
          need('recipient');
          break;
        case 'shutdown_response':
        case 'plan_approval_response':
          need('request_id');
          if (input.type === 'plan_approval_response') need('recipient');
          if (input.approve === undefined) refused.push('approve');
          if (input.approve === false) need('content');
          break;
      }
      break;
    case 'Task':
      need('prompt');
      need('subagent_type');
      if (blank(input.name)) refused.push('name');
      if (input.team_name !== undefined && input.name === undefined) refused.push('name');
      if (
        input.resume !== undefined &&
        (input.name !== undefined || input.team_name !== undefined)
      ) {
        refused.push('resume');
      }
      break;
    case 'TeamDelete':
    case 'TaskList':
      break;
  }
  return refused.sort();
}

const wireTypeOfTool: Record<ToolName, WireTypeName> = {
  TeamCreate: 'TeamCreateInput',
  TeamDelete: 'TeamDeleteInput',
  SendMessage: 'SendMessageInput',
  TaskCreate: 'TaskCreateInput',
  TaskGet: 'TaskGetInput',
  TaskUpdate: 'TaskUpdateInput',
  TaskList: 'TaskListInput',
  Task: 'AgentInput',
};

type ToolSchema = {
  properties?: Record<string, { enum?: unknown[] }>;
  required?: string[];
  additionalProperties?: unknown;
};

const readToolSchema = (tool: string): ToolSchema =>
  JSON.parse(
    readFileSync(path.join(referenceFolder(), 'tools', `${tool}.input_schema.json`), 'utf8'),
  ) as ToolSchema;

describe("inputs Claude Code 2.1.45's tool schemas accept", () => {
  const ourSchemas = TOOL_NAMES.map((tool) => buildSchema(wireTypeOfTool[tool]));
  const ajv = createStrictAjv(ourSchemas);
  const claudeAjv = createStrictAjv();

  it.each(TOOL_NAMES.map((tool) => [tool]))(
    '%s: our schema is a superset of Claude Code’s',
    (tool) => {
      const claude = readToolSchema(tool);
      const ours = buildSchema(wireTypeOfTool[tool]) as ToolSchema & { $id: string };
      const validate = ajv.getSchema(ours.$id)!;
      expect(ours.additionalProperties).toBe(false);
      expect(claude.additionalProperties).toBe(false);
      for (const [key, property] of Object.entries(claude.properties ?? {})) {
        expect(Object.keys(ours.properties ?? {}), `${tool}.${key}`).toContain(key);
        for (const value of property.enum ?? []) {
          expect(
            validate({ ...sampleRequired(claude), [key]: value }),
            `${tool}.${key}=${String(value)}`,
          ).toBe(true);
        }
      }
      for (const key of ours.required ?? []) expect(claude.required ?? []).toContain(key);
    },
  );

  it.each(TOOL_NAMES.map((tool) => [tool]))(
    '%s: every generated sample is accepted, or refused exactly where PROTOCOL.md says',
    (tool) => {
      const claude = readToolSchema(tool);
      const validateWithClaude = claudeAjv.compile(claude);
      const ours = ajv.getSchema(buildSchema(wireTypeOfTool[tool]).$id as string)!;
      const samples = sampleObjects(claude as Parameters<typeof sampleObjects>[0]);
      expect(samples.length).toBeGreaterThan(0);
      let accepted = 0;
      for (const sample of samples) {
        const label = `${tool} ${JSON.stringify(sample)}`;
        expect(
          validateWithClaude(sample),
          `generator produced an input Claude refuses: ${label}`,
        ).toBe(true);
        expect(ours(sample), `our JSON Schema refuses ${label}`).toBe(true);
        const result = TOOL_INPUT_SCHEMAS[tool].safeParse(sample);
        const refused = result.success
          ? []
          : result.error.issues.map((issue) => {
              expect(issue.code, label).toBe('custom');
              expect(issue.message.length, label).toBeGreaterThan(10);
              return issue.path.join('.');
            });
        expect(refused.sort(), label).toEqual(expectedRefusals(tool, sample));
        if (result.success) accepted += 1;
      }
      expect(accepted).toBeGreaterThan(0);
    },
  );

  it('has no muster counterpart only for ExitPlanMode', () => {
    const tools = readdirTools();
    expect(tools.filter((tool) => !(TOOL_NAMES as readonly string[]).includes(tool))).toEqual([
      'ExitPlanMode',
    ]);
  });
});

function sampleRequired(schema: ToolSchema): Record<string, unknown> {
  const sample = sampleObjects({ ...schema, properties: schema.properties as never }).find(
    (candidate) => (schema.required ?? []).every((key) => key in candidate),
  );
  return Object.fromEntries((schema.required ?? []).map((key) => [key, sample?.[key]]));
}

function readdirTools(): string[] {
  return readdirSync(path.join(referenceFolder(), 'tools'))
    .map((file) => file.replace(/\.input_schema\.json$/, ''))
    .sort();
}
