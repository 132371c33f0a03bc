// What the team, task and message tools share: their options, one mailbox per team, the
// team config lookups, the JSON Schemas sent to the model, and errors the model can read.
import { createMailbox, type Mailbox, type MailboxOptions } from '@muster/mailbox';
import type { PlanReview, ShutdownGate } from '@muster/permissions';
import {
  MusterError,
  TEAM_LEAD_NAME,
  type BackendType,
  type TeamConfig,
  type TeamMember,
} from '@muster/protocol';
import { QueryError, ToolError, type ToolContext } from '@muster/query';
import type { TaskHooks } from '@muster/tasks';
import { readTeam, type DeleteTeamOptions, type TeamDialect } from '@muster/teams';
import { z } from 'zod';
import type { TeamSession } from './team-session.js';

/** Options of `createTeamTools` (and of each team, task and message tool). */
export interface TeamToolsOptions {
  /** The muster root holding `teams/` and `tasks/` (`~/.muster`, or `~/.claude` to share Claude Code's). */
  root: string;
  /** The agent's team session (see `createTeamSession`); it holds the agent's name and team. */
  session: TeamSession;
  /** The agent's name, when the caller wants it checked: must equal `session.agentName`. */
  agentName?: string;
  /** The files TeamCreate writes: `v2` (default, muster's own teams) or `v1` (Claude Code 2.1.45). */
  dialect?: TeamDialect;
  /**
   * Opens the team's mailbox for this agent's sends. A lead's runtime passes one built with
   * its keyring (`createMailbox({ root, team, ...keyring.mailboxOptions() })`) so every entry
   * is signed for its recipient and recorded in the ledger. Takes precedence over `mailboxOptions`.
   */
  openMailbox?: (teamName: string) => Mailbox;
  /**
   * Options added to `createMailbox({ root, team })` when `openMailbox` is not given: for a
   * lead, `createLeadKeyring().mailboxOptions()` from `@muster/permissions`.
   */
  mailboxOptions?: Omit<MailboxOptions, 'root' | 'team'>;
  /**
   * The lead's plan review (the permission broker): `plan_approval_response` goes through it,
   * so approvals carry the plan digest and the worker's mode follows. Without it the lead's
   * SendMessage refuses plan answers.
   */
  planReview?: Pick<PlanReview, 'approvePlan' | 'rejectPlan' | 'pendingPlans'>;
  /**
   * A teammate's shutdown gate: a `shutdown_response` may only answer a request the lead
   * verifiably sent (`isGenuine`). Without it, only the request id's form and addressee are checked.
   */
  shutdownGate?: Pick<ShutdownGate, 'isGenuine'>;
  /** Called after a teammate approved its shutdown (and the lead was told): end the agent. */
  onShutdownApproved?: (approval: { requestId: string; lead: string }) => void | Promise<void>;
  /** A teammate's pane and backend, written into its `shutdown_approved` for the lead's cleanup. */
  shutdownDetails?: { paneId?: string; backendType?: BackendType };
  /** TeamDelete: decides whether a member still runs (see `deleteTeam` in `@muster/teams`). */
  isMemberAlive?: DeleteTeamOptions['isMemberAlive'];
  /** Task hooks (`beforeComplete`) for the task store. */
  taskHooks?: TaskHooks;
  /** The lead's model and session id, recorded by TeamCreate. */
  leadModel?: string;
  /** The lead's session id recorded by TeamCreate (a fresh UUID when absent). */
  leadSessionId?: string;
}

/** The shared state of one agent's team tools. */
export interface TeamToolsRuntime {
  readonly options: TeamToolsOptions;
  readonly session: TeamSession;
  /** The team's mailbox (one per team, kept while the agent is in it). */
  mailbox(teamName: string): Mailbox;
  /** Forgets a team's mailbox (after TeamDelete). */
  dropMailbox(teamName: string): void;
}

/** Checks the options and builds the shared state. Throws `QueryError('INVALID_OPTIONS')`. */
export function createTeamToolsRuntime(options: TeamToolsOptions): TeamToolsRuntime {
  if (options === null || typeof options !== 'object') {
    throw optionsError('createTeamTools needs options { root, session, … }.');
  }
  if (typeof options.root !== 'string' || options.root === '') {
    throw optionsError('createTeamTools: root must be the muster root folder (e.g. ~/.muster).');
  }
  const session = options.session;
  if (session === null || typeof session !== 'object' || typeof session.teamName !== 'function') {
    throw optionsError('createTeamTools: session must come from createTeamSession(…).');
  }
  if (options.agentName !== undefined && options.agentName !== session.agentName) {
    throw optionsError(
      `createTeamTools: agentName ${JSON.stringify(options.agentName)} differs from the session's agent ${JSON.stringify(session.agentName)}; the tools speak for the session's agent, so drop agentName or create the session with that name.`,
    );
  }
  const dialect = options.dialect ?? 'v2';
  if (dialect !== 'v1' && dialect !== 'v2') {
    throw optionsError(
      `createTeamTools: dialect must be "v1" or "v2", not ${JSON.stringify(dialect)}.`,
    );
  }
  const signs =
    options.openMailbox !== undefined ||
    (options.mailboxOptions?.signEntry !== undefined &&
      options.mailboxOptions.ledger !== undefined);
  if (session.role === 'lead' && dialect === 'v2' && !signs) {
    throw optionsError(
      'createTeamTools: the lead of a v2 team must send through a mailbox that signs its entries and records them in a ledger, or its teammates refuse its shutdown requests and plan answers. Pass mailboxOptions: keyring.mailboxOptions() (createLeadKeyring from @muster/permissions), or openMailbox returning such a mailbox.',
    );
  }
  const mailboxes = new Map<string, Mailbox>();
  return {
    options,
    session,
    mailbox(teamName) {
      let mailbox = mailboxes.get(teamName);
      if (mailbox === undefined) {
        mailbox =
          options.openMailbox?.(teamName) ??
          createMailbox({ ...options.mailboxOptions, root: options.root, team: teamName });
        mailboxes.set(teamName, mailbox);
      }
      return mailbox;
    },
    dropMailbox: (teamName) => {
      mailboxes.delete(teamName);
    },
  };
}

function optionsError(message: string): QueryError {
  return new QueryError({ code: 'INVALID_OPTIONS', message });
}

/** The team the agent is in, or a `NOT_IN_TEAM` error telling the model what to do. */
export function requireTeam(runtime: TeamToolsRuntime, toolName: string): string {
  const team = runtime.session.teamName();
  if (team === undefined) {
    throw new ToolError(
      `${toolName} needs a team, and ${runtime.session.agentName} is not in one. Create a team with TeamCreate first.`,
      'NOT_IN_TEAM',
    );
  }
  return team;
}

/** Stops before doing anything when the turn was interrupted. */
export function throwIfAborted(context: Pick<ToolContext, 'signal'>, toolName: string): void {
  if (context.signal.aborted) {
    throw new ToolError(`${toolName} was not run: the turn was interrupted.`, 'ABORTED');
  }
}

/** Runs a package call and turns its `MusterError` into a `ToolError` with the same message and code. */
export async function asToolError<Value>(operation: () => Promise<Value>): Promise<Value> {
  try {
    return await operation();
  } catch (error) {
    if (error instanceof ToolError) throw error;
    if (MusterError.isInstance(error)) {
      throw new ToolError(error.message, error.code, error.details);
    }
    throw error;
  }
}

/** Reads the team config (errors as `ToolError`). */
export function readTeamConfig(runtime: TeamToolsRuntime, teamName: string): Promise<TeamConfig> {
  return asToolError(() => readTeam(runtime.options.root, teamName));
}

/** The lead member of a team config (by `leadAgentId`, else by the name `team-lead`). */
export function leadOf(config: TeamConfig): TeamMember | undefined {
  return (
    config.members.find((member) => member.agentId === config.leadAgentId) ??
    config.members.find((member) => member.name === TEAM_LEAD_NAME)
  );
}

/** The member called `name` (or with agent id `name`), if any. */
export function memberNamed(config: TeamConfig, name: string): TeamMember | undefined {
  return config.members.find((member) => member.name === name || member.agentId === name);
}

/** Pretty-printed JSON, as the team tools return their results. */
export function prettyJson(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

/**
 * The JSON Schema sent to the model for a protocol tool input: the zod schema's own JSON
 * Schema with its `$ref` to the named definition inlined, without `$schema`, `id` or the
 * wire-type description (the tool's description is the model's guide).
 */
export function toolInputJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const generated = z.toJSONSchema(schema, { io: 'input', target: 'draft-2020-12' }) as Record<
    string,
    unknown
  >;
  let body: Record<string, unknown> = { ...generated };
  const reference = generated.$ref;
  const definitions = (generated.$defs ?? {}) as Record<string, Record<string, unknown>>;
  if (typeof reference === 'string' && reference.startsWith('#/$defs/')) {
    const name = reference.slice('#/$defs/'.length);
    const rest = { ...definitions };
    delete rest[name];
    body = { ...definitions[name], ...(Object.keys(rest).length > 0 ? { $defs: rest } : {}) };
  }
  delete body.$schema;
  delete body.$ref;
  delete body.id;
  delete body.description;
  return body;
}
