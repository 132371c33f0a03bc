import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { findValueChanges } from '../test/zod-walk.js';
import {
  PROTOCOL_MESSAGE_SCHEMAS,
  PROTOCOL_MESSAGE_SCHEMAS_V1,
  PROTOCOL_MESSAGE_TYPES,
  ProtocolMessageSchema,
} from './protocol-message.js';
import { TOOL_NAMES } from './tools.js';
import {
  FILE_TYPE_NAMES,
  TOOL_INPUT_SCHEMAS,
  WIRE_SCHEMAS,
  WIRE_TYPE_EXTRA_RULES,
  WIRE_TYPE_NAMES,
} from './wire-types.js';

const MESSAGE_TYPE_NAMES = [
  'IdleNotification',
  'ShutdownRequest',
  'ShutdownApproved',
  'ShutdownRejected',
  'PlanApprovalRequest',
  'PlanApprovalResponse',
  'PermissionRequest',
  'PermissionResponse',
  'SandboxPermissionRequest',
  'SandboxPermissionResponse',
  'TaskAssignment',
  'TaskCompleted',
  'ModeSetRequest',
  'TeamPermissionUpdate',
];

describe('the wire types', () => {
  it('are exactly the published list', () => {
    expect(WIRE_TYPE_NAMES).toEqual([
      'TeamConfig',
      'TeamMember',
      'TeamAllowedPath',
      'InboxMessage',
      'Inbox',
      'Task',
      ...MESSAGE_TYPE_NAMES,
      'ProtocolMessage',
      'TeamCreateInput',
      'TeamDeleteInput',
      'SendMessageInput',
      'TaskCreateInput',
      'TaskGetInput',
      'TaskUpdateInput',
      'TaskListInput',
      'AgentInput',
      'PermissionMode',
      'BackendType',
      'TaskStatus',
    ]);
  });

  it.each(WIRE_TYPE_NAMES.map((name) => [name]))(
    '%s carries its own name as meta id and a description',
    (name) => {
      const meta = z.globalRegistry.get(WIRE_SCHEMAS[name]);
      expect(meta?.id).toBe(name);
      expect(meta?.description?.length).toBeGreaterThan(10);
    },
  );

  it('list every protocol message once, in the union and in the constants', () => {
    expect(Object.keys(PROTOCOL_MESSAGE_SCHEMAS)).toEqual([...PROTOCOL_MESSAGE_TYPES]);
    expect(Object.keys(PROTOCOL_MESSAGE_SCHEMAS_V1)).toEqual([...PROTOCOL_MESSAGE_TYPES]);
    const unionOptions = (ProtocolMessageSchema as unknown as { options: z.ZodType[] }).options;
    expect(unionOptions).toEqual(Object.values(PROTOCOL_MESSAGE_SCHEMAS));
    const v1Options = (WIRE_SCHEMAS.ProtocolMessage as unknown as { options: z.ZodType[] }).options;
    expect(v1Options).toEqual(Object.values(PROTOCOL_MESSAGE_SCHEMAS_V1));
    expect(Object.values(PROTOCOL_MESSAGE_SCHEMAS_V1)).toEqual(
      MESSAGE_TYPE_NAMES.map((name) => WIRE_SCHEMAS[name as keyof typeof WIRE_SCHEMAS]),
    );
  });

  it('publish the v1 shapes in WIRE_SCHEMAS, not the readers that also accept v2', () => {
    // schemas/v1 must never change: the v2 fields live on the readers' schemas only.
    expect(WIRE_SCHEMAS.IdleNotification).not.toBe(PROTOCOL_MESSAGE_SCHEMAS.idle_notification);
    const v1Idle = WIRE_SCHEMAS.IdleNotification.safeParse({
      type: 'idle_notification',
      from: 'alpha',
      timestamp: '2026-01-31T12:00:00.000Z',
      result: 42,
    });
    expect(v1Idle.success).toBe(true); // unknown fields are allowed in v1
    const reader = PROTOCOL_MESSAGE_SCHEMAS.idle_notification.safeParse({
      type: 'idle_notification',
      from: 'alpha',
      timestamp: '2026-01-31T12:00:00.000Z',
      result: 42,
    });
    expect(reader.success).toBe(false); // the reader knows result is text
  });

  it('map every tool name to its input schema', () => {
    expect(Object.keys(TOOL_INPUT_SCHEMAS)).toEqual([...TOOL_NAMES]);
    expect(TOOL_INPUT_SCHEMAS.Task).toBe(WIRE_SCHEMAS.AgentInput);
  });

  it('list extra rules only for types that have refinements', () => {
    for (const [name, rules] of Object.entries(WIRE_TYPE_EXTRA_RULES)) {
      expect(WIRE_TYPE_NAMES).toContain(name);
      expect(rules?.length).toBeGreaterThan(0);
      expect(
        z.globalRegistry.get(WIRE_SCHEMAS[name as keyof typeof WIRE_SCHEMAS])?.description,
      ).toContain(rules![0]);
    }
  });
});

describe('file and message schemas hand back exactly what they read', () => {
  // parseJsonFile returns the parsed object itself instead of zod's output. That is only
  // exact while no schema for a file or message has a default, a transform or a trim.
  const exactTypes = [...FILE_TYPE_NAMES, ...MESSAGE_TYPE_NAMES, 'ProtocolMessage'] as const;

  it.each(exactTypes.map((name) => [name]))('%s has no default, transform or overwrite', (name) => {
    expect(findValueChanges(WIRE_SCHEMAS[name as keyof typeof WIRE_SCHEMAS])).toEqual([]);
  });

  it('the check itself notices defaults, transforms, pipes, catches and trims', () => {
    const tainted = z.looseObject({
      a: z.string().default('x'),
      b: z.string().transform((value) => value.length),
      c: z.array(z.string().trim()),
      d: z.number().catch(0),
      e: z.union([z.string(), z.object({ f: z.string().optional().default('g') })]),
    });
    const problems = findValueChanges(tainted);
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringContaining('.a: default'),
        expect.stringContaining('.b: pipe'),
        expect.stringContaining('overwriting check'),
        expect.stringContaining('.d: catch'),
        expect.stringMatching(/\.e\..*default/),
      ]),
    );
  });
});
