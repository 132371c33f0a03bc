// The interactive app's view-model of a lead's team session: a pure reducer of the team's
// events (`TeamEvent` from @muster/agents) and of what the runtime reports on its members and
// status (`members()`, `status()`), so every screen can be tested without a terminal.
import type { MemberState, TeamEvent } from '@muster/agents';
import type { TokenUsage } from '@muster/query';
import {
  appendEntries,
  applyAgentEvent,
  describeToolInput,
  EMPTY_CONVERSATION,
  type Conversation,
} from './conversation-model.js';
import { taskViews, withCurrentTasks } from './task-views.js';

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
  /** How a person looks at it when it runs in its own process (an attach command, or why not). */
  look?: string;
  /** A pty teammate's screen, as its rows' text (while it is selected). */
  screen?: string;
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
  /** Estimated cost in USD so far by agent name (agents whose model has a price). */
  costs: Readonly<Record<string, number>>;
  /** Agents with usage but no price (their cost is unknown). */
  unpriced: readonly string[];
  /** The newest notice for the status area. */
  lastNotice?: { level: 'info' | 'warning' | 'error'; text: string };
}

/** One teammate as the runtime's `members()` reports it (the fields the app shows). */
export interface RosterMember {
  name: string;
  backendType: string;
  color?: string;
  agentType?: string;
  model?: string;
  state?: string;
  usage?: TokenUsage;
  costUsd?: number;
  /** How to look at it: an attach command, or why it cannot be looked at (not for transcripts and screens). */
  look?: string;
}

/** The runtime's status line (`status()`). */
export interface RosterStatus {
  model: string;
  permissionMode: string;
  teamName?: string;
  /** The lead's estimated cost (USD), when its model has a price. */
  leadCostUsd?: number;
  unpricedAgents: readonly string[];
}
/** Everything that changes the model. */
export type SessionAction =
  /** One team event. */
  | { type: 'event'; event: TeamEvent }
  /** What the runtime reports now on its teammates and itself (polled; no I/O). */
  | { type: 'roster'; members: readonly RosterMember[]; status: RosterStatus }
  /** A pty teammate's screen, read for the person looking at it. */
  | { type: 'screen'; agentName: string; text: string }
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

function applyUsage(
  model: SessionModel,
  agentName: string,
  usage: TokenUsage,
  costUsd: number | undefined,
): SessionModel {
  let next: SessionModel =
    costUsd === undefined
      ? model.unpriced.includes(agentName) || totalTokens(usage) === 0
        ? model
        : { ...model, unpriced: [...model.unpriced, agentName] }
      : {
          ...model,
          costs: { ...model.costs, [agentName]: costUsd },
          unpriced: model.unpriced.filter((name) => name !== agentName),
        };
  if (agentName === LEAD_NAME) return { ...next, leadUsage: usage };
  if (next.members.some((member) => member.name === agentName)) {
    next = withMember(next, agentName, (member) => ({ ...member, usage }));
  }
  return next;
}

function applyRoster(
  model: SessionModel,
  members: readonly RosterMember[],
  status: RosterStatus,
): SessionModel {
  let next: SessionModel = {
    ...model,
    model: status.model,
    permissionMode: status.permissionMode,
    ...(status.teamName === undefined ? {} : { teamName: status.teamName }),
    // The runtime's list is the truth: an agent priced since is no longer unknown.
    unpriced: [...status.unpricedAgents],
    ...(status.leadCostUsd === undefined
      ? {}
      : { costs: { ...model.costs, [LEAD_NAME]: status.leadCostUsd } }),
  };
  for (const reported of members) {
    next = withMember(next, reported.name, (member) => ({
      ...member,
      backend: reported.backendType,
      ...(reported.color === undefined ? {} : { color: reported.color }),
      ...(reported.agentType === undefined ? {} : { agentType: reported.agentType }),
      ...(reported.model === undefined ? {} : { model: reported.model }),
      ...(reported.usage === undefined ? {} : { usage: reported.usage }),
      ...(reported.look === undefined ? {} : { look: reported.look }),
      // In-process members report their state as events; process members only here.
      ...(reported.state !== undefined && reported.backendType !== 'in-process'
        ? { state: reported.state as MemberState }
        : {}),
    }));
    if (reported.costUsd !== undefined) {
      next = { ...next, costs: { ...next.costs, [reported.name]: reported.costUsd } };
    }
  }
  return next;
}

function applyEvent(model: SessionModel, event: TeamEvent): SessionModel {
  switch (event.type) {
    case 'agent':
      return withConversation(model, event.agentName, (conversation) =>
        applyAgentEvent(conversation, event.event),
      );
    case 'tasks':
      return withCurrentTasks({
        ...model,
        teamName: event.teamName,
        tasks: taskViews(event.tasks),
      });
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
      // The agent's totals so far and their estimated cost (absent: no price for its model).
      return applyUsage(model, event.agentName, event.usage, event.costUsd);
    case 'message': {
      // An idle teammate says so after every turn: its state shows it, the conversation need not.
      if (event.protocolType === 'idle_notification') return model;
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

/** The model after one action. Pure. */
export function reduceSession(model: SessionModel, action: SessionAction): SessionModel {
  switch (action.type) {
    case 'event':
      return applyEvent(model, action.event);
    case 'roster':
      return applyRoster(model, action.members, action.status);
    case 'screen':
      if (!model.members.some((member) => member.name === action.agentName)) return model;
      return withMember(model, action.agentName, (member) => ({ ...member, screen: action.text }));
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

/** The summed cost estimate of the priced agents; undefined when none is priced. */
export function totalCost(model: SessionModel): number | undefined {
  const values = Object.entries(model.costs)
    .filter(([name]) => !model.unpriced.includes(name))
    .map(([, cost]) => cost);
  return values.length === 0 ? undefined : values.reduce((sum, value) => sum + value, 0);
}

/** An agent's cost estimate; undefined when one of its requests could not be priced. */
export function agentCost(model: SessionModel, name: string): number | undefined {
  return model.unpriced.includes(name) ? undefined : model.costs[name];
}
