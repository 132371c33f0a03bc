import { z } from 'zod';
import { IsoTimestampSchema, PermissionModeSchema } from './common.js';

/** Where a permission update is stored. */
export const PermissionUpdateDestinationSchema = z
  .enum(['userSettings', 'projectSettings', 'localSettings', 'session', 'cliArg'])
  .meta({ id: 'PermissionUpdateDestination' });
export type PermissionUpdateDestination = z.infer<typeof PermissionUpdateDestinationSchema>;

/** A rule as it travels in updates: a tool name, optionally with a specifier (`git:*`). */
export const PermissionRuleValueSchema = z
  .looseObject({
    /** Tool the rule is about, e.g. `Bash`. */
    toolName: z.string().min(1),
    /** What inside the tool, e.g. `git:*` or `src/**`; absent for the whole tool. */
    ruleContent: z.string().optional(),
  })
  .meta({ id: 'PermissionRuleValue' });
export type PermissionRuleValue = z.infer<typeof PermissionRuleValueSchema>;

const RuleUpdateFields = {
  /** The rules to add, replace or remove. */
  rules: z.array(PermissionRuleValueSchema),
  /** What the rules do. */
  behavior: z.enum(['allow', 'deny', 'ask']),
  /** Where they are stored. */
  destination: PermissionUpdateDestinationSchema,
};
const DirectoryUpdateFields = {
  /** Absolute directories. */
  directories: z.array(z.string()),
  /** Where they are stored. */
  destination: PermissionUpdateDestinationSchema,
};

/** A change to an agent's permission settings, suggested by a request or applied by an answer. */
export const PermissionUpdateSchema = z
  .discriminatedUnion('type', [
    z.looseObject({ type: z.literal('addRules'), ...RuleUpdateFields }),
    z.looseObject({ type: z.literal('replaceRules'), ...RuleUpdateFields }),
    z.looseObject({ type: z.literal('removeRules'), ...RuleUpdateFields }),
    z.looseObject({
      type: z.literal('setMode'),
      /** The mode to switch to. */
      mode: PermissionModeSchema,
      /** Where it is stored. */
      destination: PermissionUpdateDestinationSchema,
    }),
    z.looseObject({ type: z.literal('addDirectories'), ...DirectoryUpdateFields }),
    z.looseObject({ type: z.literal('removeDirectories'), ...DirectoryUpdateFields }),
  ])
  .meta({ id: 'PermissionUpdate' });
export type PermissionUpdate = z.infer<typeof PermissionUpdateSchema>;

/** Teammate → lead: may I run this tool call? */
export const PermissionRequestSchema = z
  .looseObject({
    type: z.literal('permission_request'),
    /** `perm-{epochMs}-{7 base-36 characters}`. */
    request_id: z.string().min(1),
    /** Name of the asking teammate. */
    agent_id: z.string().min(1),
    /** Tool it wants to run, e.g. `Write`. */
    tool_name: z.string().min(1),
    /** The model's tool_use block id. */
    tool_use_id: z.string(),
    /** What the tool does, for the person deciding. */
    description: z.string(),
    /** The tool call's input. */
    input: z.record(z.string(), z.unknown()),
    /** Updates the lead may apply with its answer ("always allow …"). */
    permission_suggestions: z.array(PermissionUpdateSchema),
  })
  .meta({ id: 'PermissionRequest', description: 'Teammate → lead: may I run this tool call?' });
export type PermissionRequest = z.infer<typeof PermissionRequestSchema>;

/** Lead → teammate: the call may run (possibly with changed input). */
export const PermissionResponseSuccessSchema = z
  .looseObject({
    type: z.literal('permission_response'),
    /** The request being answered. */
    request_id: z.string().min(1),
    subtype: z.literal('success'),
    /** The approval. */
    response: z.looseObject({
      /** The input to run the tool with (the original, or as the lead edited it). */
      updated_input: z.record(z.string(), z.unknown()),
      /** Rule changes to persist (applied with the teammate's mode preserved). */
      permission_updates: z.array(PermissionUpdateSchema),
    }),
  })
  .meta({ id: 'PermissionResponseSuccess' });

/** Lead → teammate: the call was denied, with the lead's message. */
export const PermissionResponseErrorSchema = z
  .looseObject({
    type: z.literal('permission_response'),
    /** The request being answered. */
    request_id: z.string().min(1),
    subtype: z.literal('error'),
    /** Why it was denied; the teammate's tool call returns this text. */
    error: z.string(),
  })
  .meta({ id: 'PermissionResponseError' });

/** Lead → teammate: the answer to a permission_request. */
export const PermissionResponseSchema = z
  .discriminatedUnion('subtype', [PermissionResponseSuccessSchema, PermissionResponseErrorSchema])
  .meta({
    id: 'PermissionResponse',
    description: 'Lead → teammate: answer to a permission_request.',
  });
export type PermissionResponse = z.infer<typeof PermissionResponseSchema>;

/** Sandboxed teammate → lead: may my code reach this network host? */
export const SandboxPermissionRequestSchema = z
  .looseObject({
    type: z.literal('sandbox_permission_request'),
    /** `sandbox-{epochMs}-{7 base-36 characters}`. */
    requestId: z.string().min(1),
    /** Agent id of the asking teammate (`name@team`). */
    workerId: z.string().min(1),
    /** Name of the asking teammate. */
    workerName: z.string().min(1),
    /** Its color, for the badge. */
    workerColor: z.string().optional(),
    /** The host being reached. */
    hostPattern: z.looseObject({
      /** Host name or pattern, e.g. `registry.npmjs.org`. */
      host: z.string().min(1),
    }),
    /** When it was asked, epoch milliseconds. */
    createdAt: z.number().int().nonnegative(),
  })
  .meta({ id: 'SandboxPermissionRequest', description: 'Teammate → lead: may I reach this host?' });
export type SandboxPermissionRequest = z.infer<typeof SandboxPermissionRequestSchema>;

/** Lead → teammate: the answer for a host. */
export const SandboxPermissionResponseSchema = z
  .looseObject({
    type: z.literal('sandbox_permission_response'),
    /** The request being answered. */
    requestId: z.string().min(1),
    /** The host the answer is for. */
    host: z.string().min(1),
    /** Whether the host may be reached. */
    allow: z.boolean(),
    /** When it was answered. */
    timestamp: IsoTimestampSchema,
  })
  .meta({ id: 'SandboxPermissionResponse', description: 'Lead → teammate: host allowed or not.' });
export type SandboxPermissionResponse = z.infer<typeof SandboxPermissionResponseSchema>;

/** Lead → every member: a permission was granted for the whole team. */
export const TeamPermissionUpdateSchema = z
  .looseObject({
    type: z.literal('team_permission_update'),
    /** The update every member applies. */
    permissionUpdate: PermissionUpdateSchema,
    /** The directory the grant covers. */
    directoryPath: z.string().min(1),
    /** The tool the grant covers. */
    toolName: z.string().min(1),
    /** Name of the sender. */
    from: z.string().min(1).optional(),
    /** When it was granted. */
    timestamp: IsoTimestampSchema.optional(),
  })
  .meta({ id: 'TeamPermissionUpdate', description: 'Lead → all: a team-wide grant.' });
export type TeamPermissionUpdate = z.infer<typeof TeamPermissionUpdateSchema>;
