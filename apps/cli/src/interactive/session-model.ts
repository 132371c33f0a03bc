// The interactive app's view-model of a lead's team session: a pure reducer of the team's
// events (`TeamEvent` from @muster/agents) plus what the app reads from disk (the team's
// config and task list), so every screen can be tested without a terminal.
import type { MemberState, TeamEvent } from '@muster/agents';
import type { TokenUsage } from '@muster/query';
import {
  appendEntries,
  applyAgentEvent,
  EMPTY_CONVERSATION,
  type Conversation,
} from './conversation-model.js';

/** The lead's name in its team (as @muster/agents names it). */
export const LEAD_NAME = 'team-lead';

/** A teammate in the panel. */
export interface MemberView {
  name: string;
  /** Its color name from the team config (`blue`, …), once known. */
  color?: string;
  agentType?: string;
  /** Its model, from the team config. */
  model?: string;
  /** `in-process`, `pty`, `tmux`, `iterm2`. */
  backend?: string;
  state: MemberState;
  /** What the state event said (a failure's reason, …). */
  stateDetail?: string;
  /** The task it owns that is in progress: its subject and `activeForm`. */
  task?: { id: string; subject: string; activeForm?: string };
  usage?: TokenUsage;
  /** How a person can look at it when it does not run in this process (an attach command). */
  look?: string;
}

/** A task of the team's list, as the panel shows it. */
export interface TaskView {
  id: string;
  subject: string;
  status: string;
  owner?: string;
  activeForm?: string;
}

/** An ask waiting for the person. */
export interface AskView {
  askId: string;
  kind: 'permission' | 'plan';
  agentName: string;
  toolName?: string;
  /** One line (permission) or the plan's text. */
  description: string;
  /** The tool input, one `field: value` line per field (permission asks). */
  input?: string;
}

/** The whole screen's data. */
export interface SessionModel {
  /** The replies come from @muster/scripted-model: every screen says so. */
  scriptedDemo: boolean;
  model: string;
  permissionMode: string;
  teamName?: string;
  members: readonly MemberView[];
  tasks: readonly TaskView[];
  /** Conversations by agent name (the lead's under {@link LEAD_NAME}). */
  conversations: Readonly<Record<string, Conversation>>;
  asks: readonly AskView[];
  leadUsage?: TokenUsage;
  /** Estimated cost in USD by agent name, summed per request (agents whose model has a price). */
  costs: Readonly<Record<string, number>>;
  /** Agents with a request that could not be priced (their cost is unknown). */
  unpriced: readonly string[];
  /** The newest notice for the status area. */
  lastNotice?: { level: 'info' | 'warning' | 'error'; text: string };
}

/** What the app reads from disk, folded into the model. */
export interface DiskSnapshot {
  teamName?: string;
  members: readonly {
    name: string;
    color?: string;
    agentType?: string;
    backendType?: string;
    model?: string;
  }[];
  tasks: readonly TaskView[];
}

/** Everything that changes the model. */
export type SessionAction =
  /**
   * One team event. For an agent's `usage` event, `requestCostUsd` is the app's estimate of
   * that request's cost (`estimateCostUsd` of @muster/query), or undefined when it has none.
   */
  | { type: 'event'; event: TeamEvent; requestCostUsd?: number }
  | { type: 'disk'; snapshot: DiskSnapshot }
  /** The person sent text to an agent (the lead's prompt, or a message to a teammate). */
  | { type: 'person'; to: string; text: string }
  | { type: 'notice'; level: 'info' | 'warning' | 'error'; text: string; agentName?: string };

/** The model before anything happened. */
export function initialSessionModel(options: {
  scriptedDemo: boolean;
  model: string;
  permissionMode: string;
}): SessionModel {
  return {
    ...options,
    members: [],
    tasks: [],
    conversations: { [LEAD_NAME]: EMPTY_CONVERSATION },
    asks: [],
    costs: {},
    unpriced: [],
  };
}

function conversationOf(model: SessionModel, name: string): Conversation {
  return model.conversations[name] ?? EMPTY_CONVERSATION;
}

function withConversation(
  model: SessionModel,
  name: string,
  update: (conversation: Conversation) => Conversation,
): SessionModel {
  return {
    ...model,
    conversations: { ...model.conversations, [name]: update(conversationOf(model, name)) },
  };
}

function withMember(
  model: SessionModel,
  name: string,
  update: (member: MemberView) => MemberView,
): SessionModel {
  const index = model.members.findIndex((member) => member.name === name);
  if (index === -1) {
    return { ...model, members: [...model.members, update({ name, state: 'starting' })] };
  }
  const members = [...model.members];
  members[index] = update(members[index] as MemberView);
  return { ...model, members };
}

/** A tool input for the person deciding: one `field: value` line per field, strings as they are. */
export function describeToolInput(input: Record<string, unknown> | undefined): string | undefined {
  if (input === undefined) return undefined;
  const lines: string[] = [];
  for (const [key, value] of Object.entries(input)) {
    let shown: string;
    if (typeof value === 'string') shown = value;
    else {
      try {
        shown = JSON.stringify(value) ?? String(value);
      } catch {
        shown = '[a value that cannot be shown]';
      }
    }
    lines.push(`${key}: ${shown}`);
  }
  const text = lines.join('\n');
  return text.length > 4_000
    ? `${text.slice(0, 4_000)}\n… (${text.length - 4_000} more characters)`
    : text;
}

function applyUsage(
  model: SessionModel,
  agentName: string,
  usage: TokenUsage,
  requestCostUsd: number | undefined,
): SessionModel {
  let next: SessionModel =
    requestCostUsd === undefined
      ? model.unpriced.includes(agentName)
        ? model
        : { ...model, unpriced: [...model.unpriced, agentName] }
      : {
          ...model,
          costs: { ...model.costs, [agentName]: (model.costs[agentName] ?? 0) + requestCostUsd },
        };
  if (agentName === LEAD_NAME) return { ...next, leadUsage: usage };
  if (next.members.some((member) => member.name === agentName)) {
    next = withMember(next, agentName, (member) => ({ ...member, usage }));
  }
  return next;
}

function applyEvent(
  model: SessionModel,
  event: TeamEvent,
  requestCostUsd: number | undefined,
): SessionModel {
  switch (event.type) {
    case 'agent': {
      const next = withConversation(model, event.agentName, (conversation) =>
        applyAgentEvent(conversation, event.event),
      );
      return event.event.type === 'usage'
        ? applyUsage(next, event.agentName, event.event.agent, requestCostUsd)
        : next;
    }
    case 'member_state':
      if (event.agentName === LEAD_NAME) return model;
      return withMember(model, event.agentName, (member) => {
        const { stateDetail: _dropped, ...rest } = member;
        return {
          ...rest,
          state: event.state,
          ...(event.detail === undefined ? {} : { stateDetail: event.detail }),
        };
      });
    case 'spawn':
      if (event.path !== 'teammate') return model;
      return withMember(model, event.agentName, (member) => ({
        ...member,
        agentType: event.agentType,
        ...(event.backendType === undefined ? {} : { backend: event.backendType }),
      }));
    case 'spawn_end':
      if (event.path !== 'teammate') return model;
      return withMember(model, event.agentName, (member) => ({
        ...member,
        state: 'gone',
        stateDetail: event.message ?? event.status,
      }));
    case 'usage':
      // The agent's total; its cost is counted from its loop's per-request usage events.
      if (event.agentName === LEAD_NAME) return { ...model, leadUsage: event.usage };
      if (!model.members.some((member) => member.name === event.agentName)) return model;
      return withMember(model, event.agentName, (member) => ({ ...member, usage: event.usage }));
    case 'message': {
      const entry = {
        kind: 'message' as const,
        from: event.from,
        to: event.to,
        text: event.text,
        ...(event.summary === undefined ? {} : { summary: event.summary }),
      };
      let next = withConversation(model, event.from, (conversation) =>
        appendEntries(conversation, entry),
      );
      if (event.to !== event.from) {
        next = withConversation(next, event.to, (conversation) =>
          appendEntries(conversation, entry),
        );
      }
      return next;
    }
    case 'ask': {
      if (model.asks.some((ask) => ask.askId === event.askId)) return model;
      const input = describeToolInput(event.input);
      const ask: AskView = {
        askId: event.askId,
        kind: event.kind,
        agentName: event.agentName,
        ...(event.toolName === undefined ? {} : { toolName: event.toolName }),
        description: event.description,
        ...(input === undefined ? {} : { input }),
      };
      return { ...model, asks: [...model.asks, ask] };
    }
    case 'ask_answer': {
      const ask = model.asks.find((candidate) => candidate.askId === event.askId);
      const asks = model.asks.filter((candidate) => candidate.askId !== event.askId);
      if (ask === undefined) return { ...model, asks };
      const what = ask.kind === 'plan' ? 'plan' : (ask.toolName ?? 'tool');
      const verdict =
        ask.kind === 'plan'
          ? event.behavior === 'allow'
            ? 'approved'
            : 'rejected'
          : event.behavior === 'allow'
            ? 'allowed'
            : 'denied';
      return withConversation({ ...model, asks }, ask.agentName, (conversation) =>
        appendEntries(conversation, {
          kind: 'notice',
          level: event.behavior === 'allow' ? 'info' : 'warning',
          text: `${what} ${verdict} by ${event.by}${event.message === undefined ? '' : `: ${event.message}`}`,
        }),
      );
    }
    case 'notice': {
      const next: SessionModel = {
        ...model,
        lastNotice: { level: event.level, text: event.text },
      };
      return withConversation(next, event.agentName ?? LEAD_NAME, (conversation) =>
        appendEntries(conversation, { kind: 'notice', level: event.level, text: event.text }),
      );
    }
    default:
      return model;
  }
}

function applyDisk(model: SessionModel, snapshot: DiskSnapshot): SessionModel {
  let next: SessionModel = {
    ...model,
    tasks: snapshot.tasks,
    ...(snapshot.teamName === undefined ? {} : { teamName: snapshot.teamName }),
  };
  for (const recorded of snapshot.members) {
    if (recorded.name === LEAD_NAME) continue;
    next = withMember(next, recorded.name, (member) => ({
      ...member,
      ...(recorded.color === undefined ? {} : { color: recorded.color }),
      ...(recorded.model === undefined ? {} : { model: recorded.model }),
      ...(member.agentType === undefined && recorded.agentType !== undefined
        ? { agentType: recorded.agentType }
        : {}),
      ...(member.backend === undefined && recorded.backendType !== undefined
        ? { backend: recorded.backendType }
        : {}),
    }));
  }
  // Each member's current task: the one it owns that is in progress.
  return {
    ...next,
    members: next.members.map((member) => {
      const owned = snapshot.tasks.find(
        (task) => task.owner === member.name && task.status === 'in_progress',
      );
      const { task: _previous, ...rest } = member;
      return owned === undefined
        ? rest
        : {
            ...rest,
            task: {
              id: owned.id,
              subject: owned.subject,
              ...(owned.activeForm === undefined ? {} : { activeForm: owned.activeForm }),
            },
          };
    }),
  };
}

/** The model after one action. Pure. */
export function reduceSession(model: SessionModel, action: SessionAction): SessionModel {
  switch (action.type) {
    case 'event':
      return applyEvent(model, action.event, action.requestCostUsd);
    case 'disk':
      return applyDisk(model, action.snapshot);
    case 'person':
      return withConversation(model, action.to, (conversation) =>
        appendEntries(conversation, { kind: 'person', text: action.text }),
      );
    case 'notice': {
      const next: SessionModel = {
        ...model,
        lastNotice: { level: action.level, text: action.text },
      };
      return withConversation(next, action.agentName ?? LEAD_NAME, (conversation) =>
        appendEntries(conversation, { kind: 'notice', level: action.level, text: action.text }),
      );
    }
  }
}

/** Tokens of a usage record, all kinds together. */
export function totalTokens(usage: TokenUsage | undefined): number {
  if (usage === undefined) return 0;
  return (
    usage.inputTokens +
    usage.outputTokens +
    usage.cacheCreationInputTokens +
    usage.cacheReadInputTokens
  );
}

/** The agents the person can select, in order: the lead, then each teammate. */
export function selectableAgents(model: SessionModel): string[] {
  return [LEAD_NAME, ...model.members.map((member) => member.name)];
}

/** The summed cost estimate; undefined when a request could not be priced, or none ran yet. */
export function totalCost(model: SessionModel): number | undefined {
  if (model.unpriced.length > 0) return undefined;
  const values = Object.values(model.costs);
  return values.length === 0 ? undefined : values.reduce((sum, value) => sum + value, 0);
}

/** An agent's cost estimate; undefined when one of its requests could not be priced. */
export function agentCost(model: SessionModel, name: string): number | undefined {
  return model.unpriced.includes(name) ? undefined : model.costs[name];
}
