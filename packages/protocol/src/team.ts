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

/** `teams/{team}/config.json`: the team and its members. */
export const TeamConfigSchema = z
  .looseObject({
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
    /** Every current member, lead first. */
    members: z.array(TeamMemberSchema).describe('Every current member, lead first.'),
  })
  .meta({
    id: 'TeamConfig',
    description:
      'teams/{team}/config.json: the team and its members. Written as 2-space JSON without a trailing newline; unknown fields are allowed and must be kept, in place and in order, when the file is rewritten.',
  });
export type TeamConfig = z.infer<typeof TeamConfigSchema>;

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
