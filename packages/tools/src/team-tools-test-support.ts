// Test helpers of the team, task and message tool tests (not exported from the package).
import { addMember } from '@muster/teams';
import type { AnyTool, ToolContext, ToolResult } from '@muster/query';

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
