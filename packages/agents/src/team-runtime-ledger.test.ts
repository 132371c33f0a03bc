// The runtime's per-agent usage and cost: requests priced one by one, a process teammate's
// reported totals priced by their growth, and no cost where the model has no price.
import { estimateCostUsd, type TokenUsage } from '@muster/query';
import { describe, expect, it } from 'vitest';
import { createTeamLedger } from './team-runtime-ledger.js';
import type { TeamEvent } from './team-event.js';

const usage = (
  inputTokens: number,
  outputTokens: number,
  cacheReadInputTokens = 0,
): TokenUsage => ({
  inputTokens,
  outputTokens,
  cacheCreationInputTokens: 0,
  cacheReadInputTokens,
});
const request = (agentName: string, tokens: TokenUsage, total: TokenUsage): TeamEvent => ({
  type: 'agent',
  agentName,
  event: { type: 'usage', request: tokens, agent: total },
  at: 0,
});

describe('createTeamLedger', () => {
  it('prices each request by its own prompt (Haiku 5.5 bills a long prompt at its higher prices)', () => {
    const ledger = createTeamLedger({ silentAgent: 'team-lead' });
    ledger.setModel('alice', 'claude-haiku-5-5');
    const short = usage(90_000, 1_000);
    const long = usage(120_000, 1_000);
    const first = ledger.observe(request('alice', short, short));
    const second = ledger.observe(request('alice', long, usage(210_000, 2_000)));
    const expected =
      estimateCostUsd('claude-haiku-5-5', short)! + estimateCostUsd('claude-haiku-5-5', long)!;
    expect(ledger.entry('alice').costUsd).toBeCloseTo(expected, 12);
    // Pricing the total as one request would be wrong here: it is over the threshold.
    expect(estimateCostUsd('claude-haiku-5-5', usage(210_000, 2_000))).not.toBeCloseTo(expected, 6);
    expect(first).toMatchObject({ type: 'usage', agentName: 'alice', usage: short });
    expect(second).toMatchObject({ usage: usage(210_000, 2_000), costUsd: expected });
    // The lead reports its own usage events: none is made for it.
    ledger.setModel('team-lead', 'claude-sonnet-5-5');
    expect(ledger.observe(request('team-lead', short, short))).toBeUndefined();
    expect(ledger.entry('team-lead').usage).toEqual(short);
  });

  it("takes a process teammate's reported totals by their growth, ignoring repeats, shrinks and junk", () => {
    const ledger = createTeamLedger({ silentAgent: 'team-lead' });
    ledger.setModel('bob', 'claude-sonnet-5-5');
    expect(ledger.reportTotal('bob', usage(100, 10))).toMatchObject({ usage: usage(100, 10) });
    expect(ledger.reportTotal('bob', usage(100, 10))).toBeUndefined();
    expect(ledger.reportTotal('bob', usage(50, 5))).toBeUndefined();
    expect(ledger.reportTotal('bob', { inputTokens: -1 } as unknown as TokenUsage)).toBeUndefined();
    const grown = ledger.reportTotal('bob', usage(300, 40, 1_000));
    expect(grown?.usage).toEqual(usage(300, 40, 1_000));
    expect(ledger.entry('bob').costUsd).toBeCloseTo(
      estimateCostUsd('claude-sonnet-5-5', usage(300, 40, 1_000))!,
      12,
    );
  });

  it('keeps state and usage but no cost for a model without a price, or before the model is known', () => {
    const ledger = createTeamLedger({ silentAgent: 'team-lead' });
    ledger.observe({ type: 'member_state', agentName: 'carol', state: 'working', at: 0 });
    const early = ledger.observe(request('carol', usage(10, 1), usage(10, 1)));
    expect(early).not.toHaveProperty('costUsd');
    ledger.setModel('carol', 'claude-sonnet-5-5');
    ledger.observe(request('carol', usage(10, 1), usage(20, 2)));
    // One request went unpriced: a total would be made up, so there is none.
    expect(ledger.entry('carol')).toEqual({ state: 'working', usage: usage(20, 2) });
    ledger.setModel('dave', 'scripted-model');
    ledger.observe(request('dave', usage(10, 1), usage(10, 1)));
    expect(ledger.entry('dave')).toEqual({ usage: usage(10, 1) });
    expect(ledger.entry('nobody')).toEqual({});
  });

  it("learns a subagent's model from its response, and never lets a recorded model be overridden", () => {
    const ledger = createTeamLedger({ silentAgent: 'team-lead' });
    const answer = (agentName: string, model: string): TeamEvent => ({
      type: 'agent',
      agentName,
      event: { type: 'assistant_message', message: { model } as never },
      at: 0,
    });
    ledger.observe(answer('explore-1', 'claude-haiku-4-5-20251001'));
    ledger.observe(request('explore-1', usage(1_000, 100), usage(1_000, 100)));
    expect(ledger.modelOf('explore-1')).toBe('claude-haiku-4-5-20251001');
    expect(ledger.entry('explore-1').costUsd).toBeCloseTo(
      estimateCostUsd('claude-haiku-4-5', usage(1_000, 100))!,
      12,
    );
    // A test double names itself: no price, so no cost.
    ledger.observe(answer('explore-2', 'claude-sonnet-5-5 (scripted test double)'));
    ledger.observe(request('explore-2', usage(1_000, 100), usage(1_000, 100)));
    expect(ledger.entry('explore-2')).not.toHaveProperty('costUsd');
    ledger.setModel('alice', 'claude-sonnet-5-5');
    ledger.observe(answer('alice', 'something-else'));
    expect(ledger.modelOf('alice')).toBe('claude-sonnet-5-5');
    expect(ledger.agentNames()).toEqual(['explore-1', 'explore-2', 'alice']);
  });
});
