import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { findValueChanges } from '../test/zod-walk.js';
import { PROTOCOL_MESSAGE_SCHEMAS, ProtocolMessageSchema } from './protocol-message.js';
import { TOOL_NAMES_V2 } from './tools-v2.js';
import {
  FILE_TYPE_NAMES_V2,
  TOOL_INPUT_SCHEMAS_V2,
  WIRE_SCHEMAS_V2,
  WIRE_TYPE_EXTRA_RULES_V2,
  WIRE_TYPE_NAMES_V2,
} from './wire-types-v2.js';

describe('the v2 wire types', () => {
  it('are exactly the published list', () => {
    expect(WIRE_TYPE_NAMES_V2).toEqual([
      'TeamConfig',
      'TeamMember',
      'TeamAllowedPath',
      'LeadProcess',
      'InboxMessage',
      'Inbox',
      'Task',
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
      'ProtocolMessage',
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

  it.each(WIRE_TYPE_NAMES_V2.map((name) => [name]))(
    '%s carries its own name as meta id and a description',
    (name) => {
      const meta = z.globalRegistry.get(WIRE_SCHEMAS_V2[name]);
      expect(meta?.id).toBe(name);
      expect(meta?.description?.length).toBeGreaterThan(10);
    },
  );

  it('use the readers’ message schemas, which are the v2 ones', () => {
    const unionOptions = (ProtocolMessageSchema as unknown as { options: z.ZodType[] }).options;
    expect(WIRE_SCHEMAS_V2.ProtocolMessage).toBe(ProtocolMessageSchema);
    expect(unionOptions).toEqual(Object.values(PROTOCOL_MESSAGE_SCHEMAS));
    expect(WIRE_SCHEMAS_V2.IdleNotification).toBe(PROTOCOL_MESSAGE_SCHEMAS.idle_notification);
    expect(WIRE_SCHEMAS_V2.PermissionResponse).toBe(PROTOCOL_MESSAGE_SCHEMAS.permission_response);
  });

  it('map every 2.1.330 tool name to its input schema', () => {
    expect(Object.keys(TOOL_INPUT_SCHEMAS_V2)).toEqual([...TOOL_NAMES_V2]);
    expect(TOOL_INPUT_SCHEMAS_V2.Agent).toBe(WIRE_SCHEMAS_V2.AgentInput);
    expect(TOOL_INPUT_SCHEMAS_V2.SendMessage).toBe(WIRE_SCHEMAS_V2.SendMessageInput);
  });

  it('list extra rules only for types that have refinements, and say them in the description', () => {
    for (const [name, rules] of Object.entries(WIRE_TYPE_EXTRA_RULES_V2)) {
      expect(WIRE_TYPE_NAMES_V2).toContain(name);
      expect(rules?.length).toBeGreaterThan(0);
      const description = z.globalRegistry.get(
        WIRE_SCHEMAS_V2[name as keyof typeof WIRE_SCHEMAS_V2],
      )?.description;
      for (const rule of rules ?? []) expect(description).toContain(rule);
    }
  });

  it.each(
    [
      ...FILE_TYPE_NAMES_V2,
      'IdleNotification',
      'PlanApprovalResponse',
      'PermissionResponse',
      'ProtocolMessage',
    ].map((name) => [name]),
  )('%s has no default, transform or overwrite (the parsed object is the file’s own)', (name) => {
    expect(findValueChanges(WIRE_SCHEMAS_V2[name as keyof typeof WIRE_SCHEMAS_V2])).toEqual([]);
  });
});
