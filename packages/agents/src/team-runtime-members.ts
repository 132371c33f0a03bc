// An in-process teammate as the lead's runtime starts it: its tools pooled from its agent
// definition, its system prompt (the definition's or muster's default, then the teammate
// section), the lead's rules, the lead runtime's ledger as its trust, and the teammate loop.
import type { InProcessMemberContext } from '@muster/backends';
import type { LeadKeyring, PermissionContextInput } from '@muster/permissions';
import { TEAM_LEAD_NAME } from '@muster/protocol';
import type { ModelClient } from '@muster/query';
import { createBuiltInTools } from '@muster/tools';
import type { AgentDefinition } from './agent-definition.js';
import { buildSystemPrompt } from './system-prompt.js';
import { DEFAULT_AGENT_PROMPT, teammateCommunicationSection } from './system-prompt-defaults.js';
import { runTeammate } from './teammate.js';
import { LOOP_TOOL_NAMES } from './teammate-support.js';
import type { SpawnedMemberInfo } from './teammate-spawn.js';
import { resolveToolPool, TEAM_ESSENTIAL_TOOLS } from './tool-pool.js';
import type { TeamEvent } from './team-event.js';

/** What {@link runInProcessTeammate} needs. */
export interface InProcessTeammateOptions {
  context: InProcessMemberContext;
  member: SpawnedMemberInfo;
  root: string;
  teamName: string;
  client: ModelClient;
  definitions: ReadonlyMap<string, AgentDefinition>;
  keyring: LeadKeyring;
  environment: Readonly<Record<string, string | undefined>>;
  home: string;
  date: string;
  leadRules: PermissionContextInput['rules'] | undefined;
  emit: (event: TeamEvent) => void;
}

/** Runs one in-process teammate until it shuts down, fails, or its lifecycle signal aborts. */
export async function runInProcessTeammate(options: InProcessTeammateOptions): Promise<void> {
  const { context, member } = options;
  const pool = resolveToolPool({
    available: createBuiltInTools(),
    definition: member.definition,
    async: false,
    teammate: true,
  });
  // The loop adds the team tools itself: a pool without them is expected, not news.
  const essential = new Set<string>(TEAM_ESSENTIAL_TOOLS);
  for (const text of pool.notices.filter(
    (notice) => ![...essential].some((name) => notice.includes(`no ${name} tool`)),
  )) {
    options.emit({
      type: 'notice',
      level: 'info',
      agentName: member.agentName,
      text,
      at: Date.now(),
    });
  }
  const tools = pool.tools.filter((tool) => !LOOP_TOOL_NAMES.has(tool.name));
  const systemPrompt = buildSystemPrompt({
    ...(member.definition.source === 'built-in'
      ? {}
      : { agentPrompt: member.definition.systemPrompt }),
    defaultPrompt: DEFAULT_AGENT_PROMPT,
    append: teammateCommunicationSection({
      agentName: member.agentName,
      teamName: options.teamName,
      planModeRequired: member.planModeRequired,
    }),
    environment: {
      cwd: context.cwd,
      model: member.model,
      toolNames: tools.map((tool) => tool.name),
      platform: process.platform,
      date: options.date,
    },
  });
  const exit = await runTeammate({
    root: options.root,
    teamName: options.teamName,
    agentName: member.agentName,
    agentId: member.agentId,
    color: member.color,
    cwd: context.cwd,
    client: options.client,
    model: member.model,
    systemPrompt,
    tools,
    leadTrust: { ledger: options.keyring.ledger },
    signal: context.signal,
    onReady: () => context.ready(),
    planModeRequired: member.planModeRequired,
    ...(member.mode === undefined ? {} : { permissionMode: member.mode }),
    ...(options.leadRules === undefined ? {} : { permissionRules: options.leadRules }),
    // Messages to the lead are reported once, by the lead's own inbox watch.
    onEvent: (event) => {
      if (event.type === 'message' && event.to === TEAM_LEAD_NAME) return;
      options.emit(event);
    },
    environment: { ...options.environment, ...(context.environment ?? {}) },
    homeDirectory: options.home,
    backendType: 'in-process',
  });
  if (exit.reason === 'failed') {
    throw exit.error instanceof Error ? exit.error : new Error(exit.message);
  }
}
