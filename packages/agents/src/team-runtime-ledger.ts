// What the lead's runtime knows about each agent of its session from the event stream: the
// latest state, token usage and estimated cost. Costs are summed request by request at
// @muster/query's list prices (a model with long-prompt prices bills each request by its own
// length); an agent whose model has no price has no cost, never a guessed one.
import { estimateCostUsd, type TokenUsage } from '@muster/query';
import type { MemberState, TeamEvent } from './team-event.js';

/** One agent's figures in the ledger. */
export interface LedgerEntry {
  /** Its latest `member_state`. */
  state?: MemberState;
  /** Its usage so far. */
  usage?: TokenUsage;
  /** Its estimated cost so far (USD); undefined while its model is unknown or has no price. */
  costUsd?: number;
}

/** Per-agent state, usage and cost, fed with the team's events. */
export interface TeamLedger {
  /** Records which model an agent runs (before its first request, when possible). */
  setModel(agentName: string, model: string): void;
  /** The model recorded for an agent (or learnt from its responses). */
  modelOf(agentName: string): string | undefined;
  /** Every agent the ledger has seen, in the order it first saw them. */
  agentNames(): string[];
  /**
   * Takes one event: `member_state` sets the state, an `agent` event of type `usage` adds that
   * request (priced at once); an `assistant_message` tells the model of an agent whose model was
   * not recorded (a subagent). Returns a `usage` team event to emit for an agent other than
   * `silentAgent` (whose loop reports its own), or undefined.
   */
  observe(event: TeamEvent): Extract<TeamEvent, { type: 'usage' }> | undefined;
  /**
   * Takes an agent's usage total as it reported it (a process teammate's idle notification):
   * the growth since its previous total is priced as one request. Returns the `usage` event to
   * emit, or undefined when nothing grew.
   */
  reportTotal(
    agentName: string,
    total: TokenUsage,
  ): Extract<TeamEvent, { type: 'usage' }> | undefined;
  /** One agent's figures. */
  entry(agentName: string): LedgerEntry;
}

interface Account {
  model?: string;
  state?: MemberState;
  usage?: TokenUsage;
  costUsd: number;
  /** Set once a request could not be priced (unknown model, or seen before the model was). */
  unpriced: boolean;
}

const ZERO: TokenUsage = Object.freeze({
  inputTokens: 0,
  outputTokens: 0,
  cacheCreationInputTokens: 0,
  cacheReadInputTokens: 0,
});

function add(left: TokenUsage, right: TokenUsage): TokenUsage {
  return {
    inputTokens: left.inputTokens + right.inputTokens,
    outputTokens: left.outputTokens + right.outputTokens,
    cacheCreationInputTokens: left.cacheCreationInputTokens + right.cacheCreationInputTokens,
    cacheReadInputTokens: left.cacheReadInputTokens + right.cacheReadInputTokens,
  };
}

function isTokenUsage(value: unknown): value is TokenUsage {
  if (value === null || typeof value !== 'object') return false;
  const usage = value as Record<string, unknown>;
  return ['inputTokens', 'outputTokens', 'cacheCreationInputTokens', 'cacheReadInputTokens'].every(
    (field) =>
      typeof usage[field] === 'number' && Number.isFinite(usage[field]) && usage[field] >= 0,
  );
}

/**
 * Creates the ledger. `silentAgent` (the lead) already emits its own `usage` events, so none is
 * made for it.
 */
export function createTeamLedger(options: { silentAgent: string }): TeamLedger {
  const accounts = new Map<string, Account>();
  const account = (agentName: string): Account => {
    let found = accounts.get(agentName);
    if (found === undefined) {
      found = { costUsd: 0, unpriced: false };
      accounts.set(agentName, found);
    }
    return found;
  };
  const usageEvent = (agentName: string, entry: Account) => ({
    type: 'usage' as const,
    agentName,
    usage: { ...(entry.usage ?? ZERO) },
    ...(entry.unpriced || entry.model === undefined ? {} : { costUsd: entry.costUsd }),
    at: Date.now(),
  });
  const addRequest = (entry: Account, request: TokenUsage) => {
    entry.usage = add(entry.usage ?? ZERO, request);
    const cost = entry.model === undefined ? undefined : estimateCostUsd(entry.model, request);
    if (cost === undefined) entry.unpriced = true;
    else entry.costUsd += cost;
  };

  return {
    setModel(agentName, model) {
      account(agentName).model = model;
    },
    modelOf: (agentName) => accounts.get(agentName)?.model,
    agentNames: () => [...accounts.keys()],
    observe(event) {
      if (event.type === 'member_state') {
        account(event.agentName).state = event.state;
        return undefined;
      }
      if (event.type === 'agent' && event.event.type === 'assistant_message') {
        // The response names the model that answered (before its usage event).
        const entry = account(event.agentName);
        const answered = (event.event.message as { model?: unknown }).model;
        if (entry.model === undefined && typeof answered === 'string' && answered !== '') {
          entry.model = answered;
        }
        return undefined;
      }
      if (event.type !== 'agent' || event.event.type !== 'usage') return undefined;
      const entry = account(event.agentName);
      addRequest(entry, event.event.request);
      return event.agentName === options.silentAgent
        ? undefined
        : usageEvent(event.agentName, entry);
    },
    reportTotal(agentName, total) {
      if (!isTokenUsage(total)) return undefined;
      const entry = account(agentName);
      const before = entry.usage ?? ZERO;
      const growth: TokenUsage = {
        inputTokens: total.inputTokens - before.inputTokens,
        outputTokens: total.outputTokens - before.outputTokens,
        cacheCreationInputTokens: total.cacheCreationInputTokens - before.cacheCreationInputTokens,
        cacheReadInputTokens: total.cacheReadInputTokens - before.cacheReadInputTokens,
      };
      const values = Object.values(growth);
      // A total that shrank (a restarted process) or did not grow adds nothing.
      if (values.some((value) => value < 0) || values.every((value) => value === 0)) {
        return undefined;
      }
      addRequest(entry, growth);
      return usageEvent(agentName, entry);
    },
    entry(agentName) {
      const found = accounts.get(agentName);
      if (found === undefined) return {};
      return {
        ...(found.state === undefined ? {} : { state: found.state }),
        ...(found.usage === undefined ? {} : { usage: { ...found.usage } }),
        ...(found.unpriced || found.model === undefined || found.usage === undefined
          ? {}
          : { costUsd: found.costUsd }),
      };
    },
  };
}
