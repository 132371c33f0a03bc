import { z } from 'zod';
import { BackendTypeSchema, EpochMillisecondsSchema, PermissionModeSchema } from './common.js';

/** A directory the whole team may use with one tool, approved once by the user. */
export const TeamAllowedPathSchema = z
  .looseObject({
    /** Absolute directory path the approval covers (and everything below it). */
    path: z.string().min(1),
    /** Tool the approval applies to, e.g. `Edit` or `Write`. */
    toolName: z.string().min(1),
    /** Name of the agent (or user) who granted it. */
    addedBy: z.string().min(1),
    /** When it was granted, epoch milliseconds. */
    addedAt: EpochMillisecondsSchema,
  })
  .meta({ id: 'TeamAllowedPath', description: 'A directory approved once for the whole team.' });
export type TeamAllowedPath = z.infer<typeof TeamAllowedPathSchema>;

/** One agent in a team: the lead or a teammate. */
export const TeamMemberSchema = z
  .looseObject({
    /** `name@team`, unique across teams. */
    agentId: z.string().min(1),
    /** Name unique within the team; the inbox file is `inboxes/{name}.json`. */
    name: z.string().min(1),
    /** Role or agent definition, `team-lead` for the lead, e.g. `general-purpose`. */
    agentType: z.string().optional(),
    /** Model the agent runs on, e.g. `claude-opus-4-6`. */
    model: z.string().optional(),
    /** The spawn prompt (teammates only). */
    prompt: z.string().optional(),
    /** UI color handed out in spawn order (blue, green, yellow, …); the lead has none. */
    color: z.string().optional(),
    /** Whether the teammate must have a plan approved before it may write. */
    planModeRequired: z.boolean().optional(),
    /** When the member joined, epoch milliseconds. */
    joinedAt: EpochMillisecondsSchema,
    /** Terminal pane id (`%3` in tmux), `in-process`, or empty for the lead. */
    tmuxPaneId: z.string(),
    /** Working directory of the agent. */
    cwd: z.string(),
    /** Git worktree the agent works in, when isolated. */
    worktreePath: z.string().optional(),
    /** Session id of the agent's conversation. */
    sessionId: z.string().optional(),
    /** Message subscriptions (unused by Claude Code 2.1.45; always `[]`). */
    subscriptions: z.array(z.string()),
    /** Where the teammate runs. */
    backendType: BackendTypeSchema.optional(),
    /** `false` while idle; `true` or absent while working. */
    isActive: z.boolean().optional(),
    /** The member's current permission mode. */
    mode: PermissionModeSchema.optional(),
  })
  .meta({ id: 'TeamMember', description: 'One agent in a team: the lead or a teammate.' });
export type TeamMember = z.infer<typeof TeamMemberSchema>;

/** `teams/{team}/config.json`: the team and its members. */
export const TeamConfigSchema = z
  .looseObject({
    /** The team's (sanitized) name; also its folder name. */
    name: z.string().min(1),
    /** What the team is for. */
    description: z.string().optional(),
    /** When the team was created, epoch milliseconds. */
    createdAt: EpochMillisecondsSchema,
    /** Agent id of the lead, `team-lead@{team}`. */
    leadAgentId: z.string().min(1),
    /** Session id of the lead's conversation. */
    leadSessionId: z.string().optional(),
    /** Panes hidden in the lead's UI. */
    hiddenPaneIds: z.array(z.string()).optional(),
    /** Directories approved once for the whole team. */
    teamAllowedPaths: z.array(TeamAllowedPathSchema).optional(),
    /** Every current member, lead first. */
    members: z.array(TeamMemberSchema),
  })
  .meta({ id: 'TeamConfig', description: 'teams/{team}/config.json: the team and its members.' });
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
