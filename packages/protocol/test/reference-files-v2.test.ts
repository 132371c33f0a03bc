// Every JSON file Claude Code 2.1.330 wrote (fixtures/claude-code-2.1.330) validates against
// schemas/v2 (Ajv) and the v2 zod schemas, is read by the readers' schemas, and is written
// back byte for byte; so does every protocol payload inside an entry's text.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  formatJsonFile,
  InboxSchema,
  parseMessageContent,
  parseJsonFile,
  PROTOCOL_MESSAGE_SCHEMAS,
  TaskSchema,
  TeamConfigSchema,
  TOOL_INPUT_SCHEMAS_V2,
  WIRE_SCHEMAS_V2,
  type ProtocolMessageType,
  type WireTypeNameV2,
} from '../src/index.js';
import { createStrictAjv } from './ajv.js';
import { sampleObjects } from './json-schema-samples.js';
import {
  listReferenceFiles,
  listReferenceInboxEntries,
  referenceFolderV2,
  type ReferenceFileKind,
} from './reference-folder.js';
import { compileCommittedSchemas } from './schema-files.js';

const { validatorOf } = compileCommittedSchemas('v2');
const v1 = compileCommittedSchemas('v1');
const root = referenceFolderV2();
const files = listReferenceFiles(root);

const typeOfKind: Partial<Record<ReferenceFileKind, WireTypeNameV2>> = {
  'team-config': 'TeamConfig',
  inbox: 'Inbox',
  task: 'Task',
  'inbox-entry': 'InboxMessage',
};

/** What muster's readers parse each kind of file with (they accept both dialects). */
const readerOfKind = {
  'team-config': TeamConfigSchema,
  inbox: InboxSchema,
  task: TaskSchema,
  'inbox-entry': WIRE_SCHEMAS_V2.InboxMessage,
} as const;

const messageTypeNames: Record<ProtocolMessageType, WireTypeNameV2> = {
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

function expectValid(typeName: WireTypeNameV2, value: unknown, source: string): void {
  const validate = validatorOf(typeName);
  expect(
    validate(value),
    `${source} vs v2/${typeName}.schema.json: ${JSON.stringify(validate.errors)}`,
  ).toBe(true);
  const result = WIRE_SCHEMAS_V2[typeName].safeParse(value);
  expect(
    result.success,
    `${source} vs v2 ${typeName}: ${JSON.stringify(result.error?.issues)}`,
  ).toBe(true);
}

describe('Claude Code 2.1.330 files validate against schemas/v2 and round-trip', () => {
  const dataFiles = files.filter((file) => typeOfKind[file.kind] !== undefined);

  it('finds the config, inbox, task and inbox-entry files of the three states', () => {
    const counts = new Map<string, number>();
    for (const file of files) counts.set(file.kind, (counts.get(file.kind) ?? 0) + 1);
    expect(Object.fromEntries(counts)).toEqual({
      'team-config': 3,
      inbox: 9,
      task: 9,
      'high-watermark': 3,
      'tasks-lock': 3,
      'inbox-entry': 22,
      'signature-example': 1,
      'tool-input-schema': 20,
      'tools-offered-index': 2,
    });
  });

  it.each(dataFiles.map((file) => [file.relativePath, file]))('%s', (relativePath, file) => {
    const text = readFileSync(file.absolutePath, 'utf8');
    const value = JSON.parse(text) as unknown;
    expectValid(typeOfKind[file.kind]!, value, relativePath);
    const reader = readerOfKind[file.kind as keyof typeof readerOfKind];
    const parsed = parseJsonFile(text, reader, relativePath);
    if (file.kind === 'inbox-entry') {
      // protocol/ entries were cut out of inboxes and pretty-printed with a trailing newline.
      expect(`${JSON.stringify(parsed, null, 2)}\n`).toBe(text);
    } else {
      // State files are byte for byte what the CLI wrote: 2-space JSON, no trailing newline.
      expect(formatJsonFile(parsed)).toBe(text);
      expect(text.endsWith('\n')).toBe(false);
    }
  });

  it('the signature example holds a v2 entry', () => {
    const example = files.find((file) => file.kind === 'signature-example')!;
    const { entry } = JSON.parse(readFileSync(example.absolutePath, 'utf8')) as { entry: unknown };
    expectValid('InboxMessage', entry, example.relativePath);
  });
});

describe('v2 entries need their envelope; v1 entries do not', () => {
  const entries = listReferenceInboxEntries(root);

  it('holds v2 entries from every inbox-entry file and the non-empty inboxes', () => {
    expect(entries.length).toBe(22 + 2);
  });

  it.each(entries.map(({ source, entry }) => [source, entry]))(
    '%s without msg_id fails the v2 schema but passes v1',
    (source, entry) => {
      const { msg_id: _removed, ...withoutId } = entry;
      expect(validatorOf('InboxMessage')(withoutId), source).toBe(false);
      expect(WIRE_SCHEMAS_V2.InboxMessage.safeParse(withoutId).success, source).toBe(false);
      expect(v1.validatorOf('InboxMessage')(entry), source).toBe(true);
    },
  );
});

describe('protocol payloads inside 2.1.330 entries validate against the v2 message schemas', () => {
  const payloads = listReferenceInboxEntries(root)
    .filter(({ entry }) => entry.text.startsWith('{'))
    .map(
      ({ source, entry }) =>
        [source, JSON.parse(entry.text) as { type: ProtocolMessageType }] as const,
    );

  it('covers every message kind Claude Code 2.1.330 wrote', () => {
    expect([...new Set(payloads.map(([, payload]) => payload.type))].sort()).toEqual(
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
  });

  it.each(payloads)('%s', (source, payload) => {
    expectValid(messageTypeNames[payload.type], payload, source);
    expectValid('ProtocolMessage', payload, source);
    expect(PROTOCOL_MESSAGE_SCHEMAS[payload.type].safeParse(payload).success).toBe(true);
  });

  it.each(payloads.map(([source]) => [source]))(
    '%s is recognised as a protocol message, not free text',
    (source) => {
      const entry = listReferenceInboxEntries(root).find((item) => item.source === source)!;
      const content = parseMessageContent(entry.entry.text);
      expect(content.kind, JSON.stringify(content)).toBe('protocol');
    },
  );

  it('the genuine 2.1.330 permission_response fails the frozen v1 schema (why v2 exists)', () => {
    const [, success] = payloads.find(
      ([source, payload]) => payload.type === 'permission_response' && source.includes('success'),
    )!;
    expect(v1.validatorOf('PermissionResponse')(success)).toBe(false);
  });
});

describe("Claude Code 2.1.330's team tool input schemas", () => {
  const toolFiles = files.filter((file) => file.kind === 'tool-input-schema');
  const claudeAjv = createStrictAjv();
  const toolOf = (relativePath: string) =>
    relativePath.replace(/^tools\//, '').replace(/\.input_schema\.json$/, '');

  it('include every v2 team tool', () => {
    const tools = toolFiles.map((file) => toolOf(file.relativePath));
    for (const tool of Object.keys(TOOL_INPUT_SCHEMAS_V2)) expect(tools).toContain(tool);
  });

  it.each(
    toolFiles
      .filter((file) => toolOf(file.relativePath) in TOOL_INPUT_SCHEMAS_V2)
      .map((file) => [file.relativePath, file]),
  )('%s: what it accepts, schemas/v2 accepts', (relativePath, file) => {
    const tool = toolOf(relativePath);
    const claudeSchema = JSON.parse(readFileSync(file.absolutePath, 'utf8')) as Record<
      string,
      unknown
    >;
    const validateWithClaude = claudeAjv.compile(claudeSchema);
    const validate = validatorOf(`${tool}Input`);
    const accepted = sampleObjects(claudeSchema).filter((sample) => validateWithClaude(sample));
    expect(accepted.length).toBeGreaterThan(0);
    for (const sample of accepted) {
      expect(validate(sample), `${tool}Input refuses ${JSON.stringify(sample)}`).toBe(true);
    }
  });
});
