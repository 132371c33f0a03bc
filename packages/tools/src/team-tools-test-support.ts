// Test helpers of the team, task and message tool tests (not exported from the package).
import { createMailbox, type Mailbox } from '@muster/mailbox';
import { createLeadKeyring } from '@muster/permissions';
import type { AnyTool, ToolContext, ToolResult } from '@muster/query';
import { addMember } from '@muster/teams';
import { makeTempDirectory } from '@muster/test-utils';
import { createTeamSession } from './team-session.js';
import type { TeamToolsOptions } from './team-tools-support.js';
import { createTeamTools, type TeamTools } from './team-tools.js';

/** A ToolContext for one call, as the loop would build it. */
export function toolContext(cwd: string, agentName = 'team-lead'): ToolContext {
  const state = new Map<symbol, unknown>();
  return {
    agent: { name: agentName, id: `${agentName}@test` },
    cwd,
    roots: { read: [cwd], write: [cwd] },
    signal: new AbortController().signal,
    toolUseId: 'toolu_test',
    state: {
      get<Value>(key: symbol, create: () => Value): Value {
        if (!state.has(key)) state.set(key, create());
        return state.get(key) as Value;
      },
    },
    onAgentClose: () => () => {},
    environment: {},
  };
}

/** Parses `input` with the tool's schema (as the loop does) and runs the call. */
export async function runTool(
  tool: AnyTool,
  input: unknown,
  context: ToolContext,
): Promise<ToolResult> {
  return tool.call(tool.inputSchema.parse(input), context);
}

/** Runs a call that must fail and returns its error message. */
export async function toolFailure(
  tool: AnyTool,
  input: unknown,
  context: ToolContext,
): Promise<{ message: string; code: string }> {
  try {
    const result = await runTool(tool, input, context);
    if (result.isError === true) return { message: String(result.content), code: 'RESULT' };
  } catch (error) {
    return { message: (error as Error).message, code: (error as { code: string }).code };
  }
  throw new Error(`${tool.name} was expected to fail with ${JSON.stringify(input)}`);
}

/** Adds an in-process teammate to a team's config. */
export function addTeammate(root: string, team: string, name: string, cwd: string) {
  return addMember(root, team, {
    name,
    agentType: 'general-purpose',
    model: 'claude-test',
    prompt: `You are ${name}.`,
    planModeRequired: false,
    cwd,
    backendType: 'in-process',
    tmuxPaneId: 'in-process',
  });
}

/** The text of a result whose content is a string. */
export function textOf(result: ToolResult): string {
  if (typeof result.content !== 'string') throw new Error('expected a text result');
  return result.content;
}

/** A team made for a test: its root, the lead's keyring and tools, a mailbox to read inboxes. */
export interface TestTeam {
  root: string;
  keyring: ReturnType<typeof createLeadKeyring>;
  lead: TeamTools;
  mailbox: Mailbox;
  context: ReturnType<typeof toolContext>;
  teammate(name: string, options?: Partial<TeamToolsOptions>): TeamTools;
}

/** A v2 team "crew" made by a lead through TeamCreate, with alice (own process, signed) and bob. */
export async function makeTestTeam(leadOptions: Partial<TeamToolsOptions> = {}): Promise<TestTeam> {
  const root = await makeTempDirectory('muster-send-message-');
  const keyring = createLeadKeyring();
  const lead = createTeamTools({
    root,
    session: createTeamSession({ role: 'lead' }),
    mailboxOptions: keyring.mailboxOptions(),
    ...leadOptions,
  });
  const context = toolContext(root);
  await runTool(lead.teamCreate, { team_name: 'crew' }, context);
  await addTeammate(root, 'crew', 'alice', root);
  await addTeammate(root, 'crew', 'bob', root);
  keyring.createMemberKey('alice');
  return {
    root,
    keyring,
    lead,
    context,
    mailbox: createMailbox({ root, team: 'crew' }),
    teammate: (name, options = {}) =>
      createTeamTools({
        root,
        session: createTeamSession({ role: 'teammate', agentName: name, teamName: 'crew' }),
        ...options,
      }),
  };
}
