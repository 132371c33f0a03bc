import { z } from 'zod';
import { IsoTimestampSchema, PermissionModeSchema, SHA256_HEX_PATTERN } from './common.js';

/** Where a permission update is stored. */
export const PermissionUpdateDestinationSchema = z
  .enum(['userSettings', 'projectSettings', 'localSettings', 'session', 'cliArg'])
  .meta({
    id: 'PermissionUpdateDestination',
    description:
      'Where a permission update is stored: a settings file (user, project, local), the current session only, or the command line.',
  });
export type PermissionUpdateDestination = z.infer<typeof PermissionUpdateDestinationSchema>;

/** A rule as it travels in updates: a tool name, optionally with a specifier (`git:*`). */
export const PermissionRuleValueSchema = z
  .looseObject({
    /** Tool the rule is about, e.g. `Bash`. */
    toolName: z.string().min(1).describe('Tool the rule is about, e.g. "Bash".'),
    /** What inside the tool, e.g. `git:*` or `src/**`; absent for the whole tool. */
    ruleContent: z
      .string()
      .optional()
      .describe('What inside the tool, e.g. "git:*" or "src/**"; absent for the whole tool.'),
  })
  .meta({
    id: 'PermissionRuleValue',
    description: 'A permission rule: a tool name, optionally narrowed by a specifier.',
  });
export type PermissionRuleValue = z.infer<typeof PermissionRuleValueSchema>;

const RuleUpdateFields = {
  /** The rules to add, replace or remove. */
  rules: z.array(PermissionRuleValueSchema).describe('The rules to add, replace or remove.'),
  /** What the rules do. */
  behavior: z.enum(['allow', 'deny', 'ask']).describe('What the rules do.'),
  /** Where they are stored. */
  destination: PermissionUpdateDestinationSchema.describe('Where they are stored.'),
};
const DirectoryUpdateFields = {
  /** Absolute directories. */
  directories: z.array(z.string()).describe('Absolute directories.'),
  /** Where they are stored. */
  destination: PermissionUpdateDestinationSchema.describe('Where they are stored.'),
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
      mode: PermissionModeSchema.describe('The mode to switch to.'),
      /** Where it is stored. */
      destination: PermissionUpdateDestinationSchema.describe('Where it is stored.'),
    }),
    z.looseObject({ type: z.literal('addDirectories'), ...DirectoryUpdateFields }),
    z.looseObject({ type: z.literal('removeDirectories'), ...DirectoryUpdateFields }),
  ])
  .meta({
    id: 'PermissionUpdate',
    description:
      "A change to an agent's permission settings, suggested by a permission_request or applied with a permission_response, told apart by type.",
  });
export type PermissionUpdate = z.infer<typeof PermissionUpdateSchema>;

/** Teammate → lead: may I run this tool call? */
export const PermissionRequestSchema = z
  .looseObject({
    /** Always `permission_request`. */
    type: z.literal('permission_request'),
    /** `perm-{epochMs}-{7 base-36 characters}`. */
    request_id: z.string().min(1).describe('"perm-{epochMs}-{7 base-36 characters}".'),
    /** Name of the asking teammate. */
    agent_id: z.string().min(1).describe('Name of the asking teammate (its name, not name@team).'),
    /** Tool it wants to run, e.g. `Write`. */
    tool_name: z.string().min(1).describe('Tool it wants to run, e.g. "Write".'),
    /** The model's tool_use block id. */
    tool_use_id: z.string().describe("The model's tool_use block id."),
    /** What the tool does, for the person deciding. */
    description: z.string().describe('What the tool does, for the person deciding.'),
    /** The tool call's input. */
    input: z.record(z.string(), z.unknown()).describe("The tool call's input object."),
    /** Updates the lead may apply with its answer ("always allow …"). */
    permission_suggestions: z
      .array(PermissionUpdateSchema)
      .describe('Updates the lead may apply with its answer ("always allow …").'),
  })
  .meta({
    id: 'PermissionRequest',
    description:
      'Teammate → lead: may I run this tool call? Answered with a permission_response carrying the same request_id.',
  });
export type PermissionRequest = z.infer<typeof PermissionRequestSchema>;

/** `permission_response` success as published in `schemas/v1` (Claude Code 2.1.45 shape). */
export const PermissionResponseSuccessV1Schema = z
  .looseObject({
    /** Always `permission_response`. */
    type: z.literal('permission_response'),
    /** The request being answered. */
    request_id: z
      .string()
      .min(1)
      .describe('The request_id of the permission_request being answered.'),
    /** `success`: the call may run. */
    subtype: z.literal('success'),
    /** The approval. */
    response: z
      .looseObject({
        /** The input to run the tool with (the original, or as the lead edited it). */
        updated_input: z
          .record(z.string(), z.unknown())
          .describe('The input to run the tool with (the original, or as the lead edited it).'),
        /** Rule changes to persist (applied with the teammate's mode preserved). */
        permission_updates: z
          .array(PermissionUpdateSchema)
          .describe("Rule changes to persist, applied with the teammate's own mode preserved."),
      })
      .describe('The approval.'),
  })
  .meta({
    id: 'PermissionResponseSuccess',
    description: 'Lead → teammate: the tool call may run, with the input to run it with.',
  });

/** `permission_response` error as published in `schemas/v1` (Claude Code 2.1.45 shape). */
export const PermissionResponseErrorV1Schema = z
  .looseObject({
    /** Always `permission_response`. */
    type: z.literal('permission_response'),
    /** The request being answered. */
    request_id: z
      .string()
      .min(1)
      .describe('The request_id of the permission_request being answered.'),
    /** `error`: the call was denied. */
    subtype: z.literal('error'),
    /** Why it was denied; the teammate's tool call returns this text. */
    error: z.string().describe("Why it was denied; the teammate's tool call returns this text."),
  })
  .meta({
    id: 'PermissionResponseError',
    description: 'Lead → teammate: the tool call was denied, with the reason.',
  });

/** `permission_response` as published in `schemas/v1` (Claude Code 2.1.45); kept byte for byte. */
export const PermissionResponseV1Schema = z
  .discriminatedUnion('subtype', [
    PermissionResponseSuccessV1Schema,
    PermissionResponseErrorV1Schema,
  ])
  .meta({
    id: 'PermissionResponse',
    description:
      'Lead → teammate: the answer to a permission_request, told apart by subtype: success (run it, with updated_input) or error (denied, with the reason).',
  });

/**
 * What a v2 `permission_response` says it answers (Claude Code 2.1.330): the request's tool
 * call and a digest of its input, so the teammate runs exactly what was approved.
 */
export const ApprovedRequestSchema = z
  .looseObject({
    /** The request's `tool_use_id`. */
    tool_use_id: z.string().min(1).describe("The request's tool_use_id."),
    /** The request's `tool_name`. */
    tool_name: z.string().min(1).describe("The request's tool_name."),
    /** Hex SHA-256 of `tool_name + "\0" + canonical JSON of the request's input`. */
    input_digest: z
      .string()
      .regex(SHA256_HEX_PATTERN, {
        message: 'expected a hex SHA-256 digest (64 lowercase hex characters)',
      })
      .describe(
        'Hex SHA-256 of tool_name + "\\0" + JSON.stringify(input with object keys sorted, recursively), where input is the request\'s.',
      ),
  })
  .meta({
    id: 'ApprovedRequest',
    description:
      "permission_response.approved_request (Claude Code 2.1.330): the tool call the answer is for, with a digest of the request's input. Present on approvals and denials alike.",
  });
export type ApprovedRequest = z.infer<typeof ApprovedRequestSchema>;

/** The fields a v2 `permission_response` adds to both subtypes. */
const permissionResponseV2Fields = {
  /** The request's `tool_use_id` (Claude Code 2.1.330). */
  tool_use_id: z
    .string()
    .min(1)
    .optional()
    .describe("The request's tool_use_id (Claude Code 2.1.330)."),
  /** The tool call this answers, with its input digest (Claude Code 2.1.330). */
  approved_request: ApprovedRequestSchema.optional().describe(
    'The tool call this answers, with its input digest (Claude Code 2.1.330).',
  ),
};

/**
 * Lead → teammate: the call may run (possibly with changed input). Claude Code 2.1.330 adds
 * `tool_use_id` and `approved_request`, and leaves `permission_updates` out when empty.
 */
export const PermissionResponseSuccessSchema = z
  .looseObject({
    /** Always `permission_response`. */
    type: z.literal('permission_response'),
    /** The request being answered. */
    request_id: z
      .string()
      .min(1)
      .describe('The request_id of the permission_request being answered.'),
    /** `success`: the call may run. */
    subtype: z.literal('success'),
    ...permissionResponseV2Fields,
    /** The approval. */
    response: z
      .looseObject({
        /** The input to run the tool with (the original, or as the lead edited it). */
        updated_input: z
          .record(z.string(), z.unknown())
          .describe('The input to run the tool with (the original, or as the lead edited it).'),
        /** Rule changes to persist; Claude Code 2.1.330 leaves the key out when there are none. */
        permission_updates: z
          .array(PermissionUpdateSchema)
          .optional()
          .describe(
            "Rule changes to persist, applied with the teammate's own mode preserved. Claude Code 2.1.330 leaves the key out when there are none: absent means [].",
          ),
      })
      .describe('The approval.'),
  })
  .meta({
    id: 'PermissionResponseSuccess',
    description: 'Lead → teammate: the tool call may run, with the input to run it with.',
  });

/** Lead → teammate: the call was denied, with the lead's message. */
export const PermissionResponseErrorSchema = z
  .looseObject({
    /** Always `permission_response`. */
    type: z.literal('permission_response'),
    /** The request being answered. */
    request_id: z
      .string()
      .min(1)
      .describe('The request_id of the permission_request being answered.'),
    /** `error`: the call was denied. */
    subtype: z.literal('error'),
    ...permissionResponseV2Fields,
    /** Why it was denied; the teammate's tool call returns this text. */
    error: z.string().describe("Why it was denied; the teammate's tool call returns this text."),
  })
  .meta({
    id: 'PermissionResponseError',
    description: 'Lead → teammate: the tool call was denied, with the reason.',
  });

/**
 * Lead → teammate: the answer to a permission_request, in either dialect. Version 2 (Claude
 * Code 2.1.330) carries `tool_use_id` and `approved_request` with the input digest.
 */
export const PermissionResponseSchema = z
  .discriminatedUnion('subtype', [PermissionResponseSuccessSchema, PermissionResponseErrorSchema])
  .meta({
    id: 'PermissionResponse',
    description:
      'Lead → teammate: the answer to a permission_request, told apart by subtype: success (run it, with updated_input) or error (denied, with the reason). Version 2 (Claude Code 2.1.330, written only to pane teammates) adds tool_use_id and approved_request {tool_use_id, tool_name, input_digest}, and leaves response.permission_updates out when there are none.',
  });
export type PermissionResponse = z.infer<typeof PermissionResponseSchema>;

/** Sandboxed teammate → lead: may my code reach this network host? */
export const SandboxPermissionRequestSchema = z
  .looseObject({
    /** Always `sandbox_permission_request`. */
    type: z.literal('sandbox_permission_request'),
    /** `sandbox-{epochMs}-{7 base-36 characters}`. */
    requestId: z.string().min(1).describe('"sandbox-{epochMs}-{7 base-36 characters}".'),
    /** Agent id of the asking teammate (`name@team`). */
    workerId: z.string().min(1).describe('Agent id of the asking teammate ("name@team").'),
    /** Name of the asking teammate. */
    workerName: z.string().min(1).describe('Name of the asking teammate.'),
    /** Its color, for the badge. */
    workerColor: z.string().optional().describe('Its color, for the badge.'),
    /** The host being reached. */
    hostPattern: z
      .looseObject({
        /** Host name or pattern, e.g. `registry.npmjs.org`. */
        host: z.string().min(1).describe('Host name or pattern, e.g. "registry.npmjs.org".'),
      })
      .describe('The host being reached.'),
    /** When it was asked, epoch milliseconds. */
    createdAt: z.number().int().nonnegative().describe('When it was asked, epoch milliseconds.'),
  })
  .meta({
    id: 'SandboxPermissionRequest',
    description:
      'Sandboxed teammate → lead: may my code reach this network host? Answered with sandbox_permission_response carrying the same requestId.',
  });
export type SandboxPermissionRequest = z.infer<typeof SandboxPermissionRequestSchema>;

/** Lead → teammate: the answer for a host. */
export const SandboxPermissionResponseSchema = z
  .looseObject({
    /** Always `sandbox_permission_response`. */
    type: z.literal('sandbox_permission_response'),
    /** The request being answered. */
    requestId: z
      .string()
      .min(1)
      .describe('The requestId of the sandbox_permission_request being answered.'),
    /** The host the answer is for. */
    host: z.string().min(1).describe('The host the answer is for.'),
    /** Whether the host may be reached. */
    allow: z.boolean().describe('Whether the host may be reached.'),
    /** When it was answered. */
    timestamp: IsoTimestampSchema.describe(
      'When it was answered. ISO-8601 with milliseconds and Z.',
    ),
  })
  .meta({
    id: 'SandboxPermissionResponse',
    description: 'Lead → teammate: whether the sandboxed teammate may reach the host.',
  });
export type SandboxPermissionResponse = z.infer<typeof SandboxPermissionResponseSchema>;

/** Lead → every member: a permission was granted for the whole team. */
export const TeamPermissionUpdateSchema = z
  .looseObject({
    /** Always `team_permission_update`. */
    type: z.literal('team_permission_update'),
    /** The update every member applies. */
    permissionUpdate: PermissionUpdateSchema.describe('The update every member applies.'),
    /** The directory the grant covers. */
    directoryPath: z.string().min(1).describe('The directory the grant covers.'),
    /** The tool the grant covers. */
    toolName: z.string().min(1).describe('The tool the grant covers.'),
    /** Name of the sender. */
    from: z.string().min(1).optional().describe('Name of the sender.'),
    /** When it was granted. */
    timestamp: IsoTimestampSchema.optional().describe(
      'When it was granted. ISO-8601 with milliseconds and Z.',
    ),
  })
  .meta({
    id: 'TeamPermissionUpdate',
    description:
      'Lead → every member: a permission was granted for the whole team (also recorded in TeamConfig.teamAllowedPaths).',
  });
export type TeamPermissionUpdate = z.infer<typeof TeamPermissionUpdateSchema>;
