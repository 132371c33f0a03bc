// Every JSON file Claude Code 2.1.45 wrote (fixtures/claude-code-2.1.45) must
// validate against the matching schema, with zod and with the committed JSON Schema, and
// so must every protocol payload inside an inbox entry's text.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  PROTOCOL_MESSAGE_SCHEMAS,
  PROTOCOL_MESSAGE_TYPES,
  TOOL_INPUT_SCHEMAS,
  WIRE_SCHEMAS,
  type ProtocolMessageType,
  type WireTypeName,
} from '../src/index.js';
import { createStrictAjv } from './ajv.js';
import { sampleObjects } from './json-schema-samples.js';
import {
  listReferenceFiles,
  listReferenceInboxEntries,
  type ReferenceFileKind,
} from './reference-folder.js';
import { compileCommittedSchemas } from './schema-files.js';

const { validatorOf } = compileCommittedSchemas();
const files = listReferenceFiles();

const typeOfKind: Partial<Record<ReferenceFileKind, WireTypeName>> = {
  'team-config': 'TeamConfig',
  inbox: 'Inbox',
  task: 'Task',
  'inbox-entry': 'InboxMessage',
};

const messageTypeNames: Record<ProtocolMessageType, WireTypeName> = {
  idle_notification: 'IdleNotification',
  shutdown_request: 'ShutdownRequest',
  shutdown_approved: 'ShutdownApproved',
  shutdown_rejected: 'ShutdownRejected',
  plan_approval_request: 'PlanApprovalRequest',
  plan_approval_response: 'PlanApprovalResponse',
  permission_request: 'PermissionRequest',
  permission_response: 'PermissionResponse',
  sandbox_permission_request: 'SandboxPermissionRequest',
  sandbox_permission_response: 'SandboxPermissionResponse',
  task_assignment: 'TaskAssignment',
  task_completed: 'TaskCompleted',
  mode_set_request: 'ModeSetRequest',
  team_permission_update: 'TeamPermissionUpdate',
};

function expectValid(typeName: WireTypeName, value: unknown, source: string): void {
  const validate = validatorOf(typeName);
  expect(
    validate(value),
    `${source} vs ${typeName}.schema.json: ${JSON.stringify(validate.errors)}`,
  ).toBe(true);
  const result = WIRE_SCHEMAS[typeName].safeParse(value);
  expect(
    result.success,
    `${source} vs ${typeName}Schema: ${JSON.stringify(result.error?.issues)}`,
  ).toBe(true);
}

describe('Claude Code 2.1.45 files validate against the schemas', () => {
  const dataFiles = files.filter((file) => typeOfKind[file.kind] !== undefined);

  it('finds the config, inbox, task and inbox-entry files', () => {
    const counts = new Map<string, number>();
    for (const file of dataFiles) counts.set(file.kind, (counts.get(file.kind) ?? 0) + 1);
    expect(Object.fromEntries(counts)).toEqual({
      'team-config': 2,
      inbox: 5,
      task: 12,
      'inbox-entry': 13,
    });
  });

  it.each(dataFiles.map((file) => [file.relativePath, file]))('%s', (_path, file) => {
    expectValid(
      typeOfKind[file.kind]!,
      JSON.parse(readFileSync(file.absolutePath, 'utf8')),
      file.relativePath,
    );
  });
});

describe('protocol payloads inside inbox entries validate against their message schema', () => {
  const payloads = listReferenceInboxEntries()
    .filter(({ entry }) => entry.text.startsWith('{'))
    .map(
      ({ source, entry }) =>
        [source, JSON.parse(entry.text) as { type: ProtocolMessageType }] as const,
    );

  it('covers every message kind Claude Code wrote', () => {
    const seen = new Set(payloads.map(([, payload]) => payload.type));
    expect([...seen].sort()).toEqual(
      [
        'idle_notification',
        'permission_request',
        'permission_response',
        'plan_approval_request',
        'plan_approval_response',
        'shutdown_approved',
        'shutdown_rejected',
        'shutdown_request',
        'task_assignment',
      ].sort(),
    );
    for (const type of seen) expect(PROTOCOL_MESSAGE_TYPES).toContain(type);
  });

  it.each(payloads)('%s', (source, payload) => {
    expectValid(messageTypeNames[payload.type], payload, source);
    expectValid('ProtocolMessage', payload, source);
    expect(PROTOCOL_MESSAGE_SCHEMAS[payload.type].safeParse(payload).success).toBe(true);
  });
});

describe("Claude Code's tool input schemas", () => {
  const toolFiles = files.filter((file) => file.kind === 'tool-input-schema');
  const claudeAjv = createStrictAjv();

  it.each(toolFiles.map((file) => [file.relativePath, file]))(
    '%s: what it accepts, our committed schema accepts (rules beyond it: src/tools.test.ts)',
    (relativePath, file) => {
      const tool = relativePath.replace(/^tools\//, '').replace(/\.input_schema\.json$/, '');
      const claudeSchema = JSON.parse(readFileSync(file.absolutePath, 'utf8')) as Record<
        string,
        unknown
      >;
      const validateWithClaude = claudeAjv.compile(claudeSchema);
      if (!(tool in TOOL_INPUT_SCHEMAS)) {
        // ExitPlanMode is a plan-mode tool of Claude Code's, not part of the team protocol.
        expect(tool).toBe('ExitPlanMode');
        return;
      }
      const typeName = (tool === 'Task' ? 'AgentInput' : `${tool}Input`) as WireTypeName;
      const validate = validatorOf(typeName);
      for (const sample of sampleObjects(claudeSchema)) {
        expect(validateWithClaude(sample)).toBe(true);
        expect(validate(sample), `${typeName} refuses ${JSON.stringify(sample)}`).toBe(true);
      }
    },
  );
});
