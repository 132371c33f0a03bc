import { z } from 'zod';
import { BackendTypeSchema, EpochMillisecondsSchema, PermissionModeSchema } from './common.js';

/** A directory the whole team may use with one tool, approved once by the user. */
export const TeamAllowedPathSchema = z
  .looseObject({
    /** Absolute directory path the approval covers (and everything below it). */
    path: z
      .string()
      .min(1)
      .describe('Absolute directory the approval covers, and everything below it.'),
    /** Tool the approval applies to, e.g. `Edit` or `Write`. */
    toolName: z.string().min(1).describe('Tool the approval applies to, e.g. "Edit" or "Write".'),
    /** Name of the agent (or user) who granted it. */
    addedBy: z.string().min(1).describe('Name of the agent (or user) who granted it.'),
    /** When it was granted, epoch milliseconds. */
    addedAt: EpochMillisecondsSchema.describe('When it was granted, epoch milliseconds.'),
  })
  .meta({
    id: 'TeamAllowedPath',
    description:
      'A directory the whole team may use with one tool, approved once by the user (an entry of TeamConfig.teamAllowedPaths). Unknown fields are allowed and must be kept when the file is rewritten.',
  });
export type TeamAllowedPath = z.infer<typeof TeamAllowedPathSchema>;

/** One agent in a team: the lead or a teammate. */
export const TeamMemberSchema = z
  .looseObject({
    /** `name@team`, unique across teams. */
    agentId: z.string().min(1).describe('"{name}@{team}", unique across teams.'),
    /** Name unique within the team; the inbox file is `inboxes/{name}.json`. */
    name: z
      .string()
      .min(1)
      .describe('Name unique within the team; the inbox file is inboxes/{name}.json.'),
    /** Role or agent definition, `team-lead` for the lead, e.g. `general-purpose`. */
    agentType: z
      .string()
      .optional()
      .describe('Agent definition: "team-lead" for the lead, e.g. "general-purpose" otherwise.'),
    /** Model the agent runs on, e.g. `claude-opus-4-6`. */
    model: z.string().optional().describe('Model the agent runs on, e.g. "claude-opus-4-6".'),
    /** The spawn prompt (teammates only). */
    prompt: z.string().optional().describe('The spawn prompt (teammates only).'),
    /** UI color handed out in spawn order (blue, green, yellow, …); the lead has none. */
    color: z
      .string()
      .optional()
      .describe('UI color handed out in spawn order (blue, green, yellow, …); the lead has none.'),
    /** Whether the teammate must have a plan approved before it may write. */
    planModeRequired: z
      .boolean()
      .optional()
      .describe('Whether the teammate must have a plan approved before it may change anything.'),
    /** When the member joined, epoch milliseconds. */
    joinedAt: EpochMillisecondsSchema.describe('When the member joined, epoch milliseconds.'),
    /** Terminal pane id (`%3` in tmux), `in-process`, or empty for the lead. */
    tmuxPaneId: z
      .string()
      .describe('Terminal pane id ("%3" in tmux), "in-process", or "" for the lead.'),
    /** Working directory of the agent. */
    cwd: z.string().describe('Working directory of the agent.'),
    /** Git worktree the agent works in, when isolated. */
    worktreePath: z.string().optional().describe('Git worktree the agent works in, when isolated.'),
    /** Session id of the agent's conversation. */
    sessionId: z.string().optional().describe("Session id of the agent's conversation."),
    /** Message subscriptions (unused by Claude Code 2.1.45; always `[]`). */
    subscriptions: z
      .array(z.string())
      .describe('Message subscriptions; unused by Claude Code 2.1.45, always [].'),
    /** Where the teammate runs. */
    backendType: BackendTypeSchema.optional().describe('Where the teammate runs.'),
    /** `false` while idle; `true` or absent while working. */
    isActive: z.boolean().optional().describe('false while idle; true or absent while working.'),
    /** The member's current permission mode. */
    mode: PermissionModeSchema.optional().describe("The member's current permission mode."),
  })
  .meta({
    id: 'TeamMember',
    description:
      'One agent in a team: the lead or a teammate (an entry of TeamConfig.members). Unknown fields are allowed and must be kept, in place and in order, when the file is rewritten.',
  });
export type TeamMember = z.infer<typeof TeamMemberSchema>;

/** The fields of `teams/{team}/config.json` both dialects share. */
const teamConfigSharedFields = {
  /** The team's (sanitized) name; also its folder name. */
  name: z.string().min(1).describe("The team's sanitized name; also its folder name."),
  /** What the team is for. */
  description: z.string().optional().describe('What the team is for.'),
  /** When the team was created, epoch milliseconds. */
  createdAt: EpochMillisecondsSchema.describe('When the team was created, epoch milliseconds.'),
  /** Agent id of the lead, `team-lead@{team}`. */
  leadAgentId: z.string().min(1).describe('Agent id of the lead, "team-lead@{team}".'),
  /** Session id of the lead's conversation. */
  leadSessionId: z.string().optional().describe("Session id of the lead's conversation."),
  /** Panes hidden in the lead's UI. */
  hiddenPaneIds: z.array(z.string()).optional().describe("Pane ids hidden in the lead's UI."),
  /** Directories approved once for the whole team. */
  teamAllowedPaths: z
    .array(TeamAllowedPathSchema)
    .optional()
    .describe('Directories approved once for the whole team.'),
};

/**
 * `teams/{team}/config.json` as Claude Code 2.1.45 writes it: the shape published in
 * `schemas/v1` (kept byte for byte). Reading goes through {@link TeamConfigSchema}.
 */
export const TeamConfigV1Schema = z
  .looseObject({
    ...teamConfigSharedFields,
    /** Every current member, lead first. */
    members: z.array(TeamMemberSchema).describe('Every current member, lead first.'),
  })
  .meta({
    id: 'TeamConfig',
    description:
      'teams/{team}/config.json: the team and its members. Written as 2-space JSON without a trailing newline; unknown fields are allowed and must be kept, in place and in order, when the file is rewritten.',
  });

/** Who owns a Claude Code 2.1.330 session team: the lead's process, for liveness checks. */
export const LeadProcessSchema = z
  .looseObject({
    /** The lead's process id. */
    pid: z.number().int().positive().describe("The lead's process id."),
    /** The pid namespace the pid belongs to, e.g. `vm#pid:[4026531836]`. */
    pidSpace: z
      .string()
      .min(1)
      .describe('The pid namespace the pid belongs to, e.g. "vm#pid:[4026531836]".'),
    /** When the lead claimed the team, epoch milliseconds (just before `createdAt`). */
    claimedAt: EpochMillisecondsSchema.describe(
      'When the lead claimed the team, epoch milliseconds (a few ms before createdAt).',
    ),
    /** The process start time as the kernel reports it (clock ticks since boot), as a string. */
    procStart: z
      .string()
      .min(1)
      .describe(
        'The process start time as the kernel reports it (clock ticks since boot), as a string; with pid it tells a live lead from a reused pid.',
      ),
  })
  .meta({
    id: 'LeadProcess',
    description:
      "TeamConfig.leadProcess (Claude Code 2.1.330 session teams): the lead's process, so another process can tell whether the session is still running. Unknown fields are allowed and must be kept.",
  });
export type LeadProcess = z.infer<typeof LeadProcessSchema>;

/** The `protocolVersion` muster writes into the config of the teams it creates in dialect v2. */
export const TEAM_PROTOCOL_VERSION_V2 = 2 as const;

/** The fields a v2 config may add to the shared ones. */
const teamConfigV2Fields = {
  /** The lead's process (Claude Code 2.1.330 session teams). */
  leadProcess: LeadProcessSchema.optional().describe(
    "The lead's process (Claude Code 2.1.330 session teams); marks a team that speaks dialect v2.",
  ),
  /** `2` on teams muster created in dialect v2. */
  protocolVersion: z
    .literal(TEAM_PROTOCOL_VERSION_V2)
    .optional()
    .describe(
      '2 on teams muster created in dialect v2 (a muster addition; Claude Code never writes it).',
    ),
};

/**
 * `teams/{team}/config.json` in either dialect: what every muster reader parses. A v2 config
 * (Claude Code 2.1.330 or a muster team with `protocolVersion: 2`) adds `leadProcess` or
 * `protocolVersion`; {@link teamDialect} tells them apart.
 */
export const TeamConfigSchema = z
  .looseObject({
    ...teamConfigSharedFields,
    ...teamConfigV2Fields,
    /** Every current member, lead first. */
    members: z.array(TeamMemberSchema).describe('Every current member, lead first.'),
  })
  .meta({
    id: 'TeamConfig',
    description:
      'teams/{team}/config.json in either dialect: the team and its members, plus leadProcess (Claude Code 2.1.330) or protocolVersion 2 (muster) on v2 teams. Written as 2-space JSON without a trailing newline; unknown fields are allowed and must be kept, in place and in order, when the file is rewritten.',
  });
export type TeamConfig = z.infer<typeof TeamConfigSchema>;

/**
 * One member of a v2 team (published in `schemas/v2`). Same fields as {@link TeamMemberSchema};
 * Claude Code 2.1.330 gives the lead `tmuxPaneId "leader"` and `backendType "in-process"`,
 * writes a pane teammate first with `tmuxPaneId ""` (starting) and keeps `isActive` on pane
 * teammates only.
 */
export const TeamMemberV2Schema = TeamMemberSchema.extend({
  /** `leader` for the lead, `in-process`, a pane id like `%3`, or `""` while a pane starts. */
  tmuxPaneId: z
    .string()
    .describe(
      'Terminal pane: "leader" for the lead, "in-process" for in-process teammates, a tmux pane id such as "%3", or "" while a pane teammate is starting.',
    ),
}).meta({
  id: 'TeamMember',
  description:
    'One agent in a v2 team (an entry of TeamConfig.members): the lead or a teammate. Claude Code 2.1.330 writes teammates in the key order agentId, name, color, joinedAt, tmuxPaneId, subscriptions, agentType, model, prompt, planModeRequired, cwd, backendType[, isActive]. Unknown fields are allowed and must be kept, in place and in order, when the file is rewritten.',
});
export type TeamMemberV2 = z.infer<typeof TeamMemberV2Schema>;

/** Rules {@link TeamConfigV2Schema} checks beyond its JSON Schema. */
export const TEAM_CONFIG_V2_RULES: readonly string[] = [
  'A v2 config carries leadProcess (Claude Code 2.1.330) or protocolVersion 2 (muster), or both.',
];

/** `teams/{team}/config.json` of a v2 team, as published in `schemas/v2`. */
export const TeamConfigV2Schema = z
  .looseObject({
    ...teamConfigSharedFields,
    ...teamConfigV2Fields,
    /** Every current member, lead first. */
    members: z.array(TeamMemberV2Schema).describe('Every current member, lead first.'),
  })
  .superRefine((config, context) => {
    if (config.leadProcess === undefined && config.protocolVersion === undefined) {
      context.addIssue({
        code: 'custom',
        path: ['protocolVersion'],
        message:
          'a v2 team config needs leadProcess (Claude Code 2.1.330) or protocolVersion 2 (muster); without either it is a v1 config',
      });
    }
  })
  .meta({
    id: 'TeamConfig',
    description: `teams/{team}/config.json of a v2 team: a Claude Code 2.1.330 session team (session-<8 hex>, with leadProcess, no description) or a muster team created with protocolVersion 2. Rewritten in place under config.json.lock by Claude Code 2.1.330; 2-space JSON without a trailing newline; unknown fields are allowed and must be kept, in place and in order. Extra rules (checked by muster, not expressible here): ${TEAM_CONFIG_V2_RULES.join(' ')}`,
  });
export type TeamConfigV2 = z.infer<typeof TeamConfigV2Schema>;

/** Colors handed to teammates in spawn order (Claude Code's order); the lead shows as red. */
export const TEAMMATE_COLORS = [
  'blue',
  'green',
  'yellow',
  'purple',
  'orange',
  'pink',
  'cyan',
  'red',
] as const;

/** Name of the lead member in every team. */
export const TEAM_LEAD_NAME = 'team-lead';
