import { describe, expect, it } from 'vitest';
import { MusterError } from './errors.js';
import {
  createPermissionRequestId,
  createPlanApprovalRequestId,
  createSandboxRequestId,
  createShutdownRequestId,
  parseRequestId,
} from './request-ids.js';

const now = () => 1_795_350_961_372;

/** Replays fixed floats in [0, 1). */
function sequence(...values: number[]): () => number {
  let index = 0;
  return () => values[index++ % values.length]!;
}

describe('request ids in the formats Claude Code writes', () => {
  it('shutdown-<ms>@<recipient>', () => {
    expect(createShutdownRequestId('alpha', { now })).toBe('shutdown-1795350961372@alpha');
    expect(createShutdownRequestId('alpha')).toMatch(/^shutdown-\d{13}@alpha$/);
  });

  it('plan_approval-<ms>@<agent>@<team>', () => {
    expect(createPlanApprovalRequestId('beta', 'conf-team', { now })).toBe(
      'plan_approval-1795350961372@beta@conf-team',
    );
    expect(createPlanApprovalRequestId('beta', 'conf-team')).toMatch(
      /^plan_approval-\d{13}@beta@conf-team$/,
    );
  });

  it('perm-<ms>-<7 base36>', () => {
    const random = sequence(0, 0.5, 0.99, 0.1, 0.2, 0.3, 0.4);
    expect(createPermissionRequestId({ now, random })).toBe('perm-1795350961372-0iz37ae');
    for (let attempt = 0; attempt < 50; attempt += 1) {
      expect(createPermissionRequestId()).toMatch(/^perm-\d{13}-[0-9a-z]{7}$/);
    }
  });

  it('sandbox-<ms>-<7 base36>', () => {
    expect(createSandboxRequestId({ now, random: sequence(0.5) })).toBe(
      'sandbox-1795350961372-iiiiiii',
    );
    expect(createSandboxRequestId()).toMatch(/^sandbox-\d{13}-[0-9a-z]{7}$/);
  });

  it('keeps the suffix at 7 base-36 characters even with a misbehaving random source', () => {
    for (const value of [1, 1.5, -0.2, Number.NaN]) {
      expect(createPermissionRequestId({ now, random: () => value })).toMatch(
        /^perm-1795350961372-[0-9a-z]{7}$/,
      );
    }
  });

  it('two permission ids created in the same millisecond differ', () => {
    const ids = new Set(Array.from({ length: 200 }, () => createPermissionRequestId({ now })));
    expect(ids.size).toBe(200);
  });
});

describe('parseRequestId', () => {
  it('reads the ids found in the Claude Code reference files', () => {
    expect(parseRequestId('shutdown-1795350961372@alpha')).toEqual({
      kind: 'shutdown',
      createdAt: 1_795_350_961_372,
      recipient: 'alpha',
    });
    expect(parseRequestId('plan_approval-1795350959546@beta@conf-team')).toEqual({
      kind: 'plan_approval',
      createdAt: 1_795_350_959_546,
      agentName: 'beta',
      teamName: 'conf-team',
    });
    expect(parseRequestId('perm-1795350959263-ku6x9i9')).toEqual({
      kind: 'permission',
      createdAt: 1_795_350_959_263,
      suffix: 'ku6x9i9',
    });
    expect(parseRequestId('sandbox-1795350959263-abc1234')).toEqual({
      kind: 'sandbox',
      createdAt: 1_795_350_959_263,
      suffix: 'abc1234',
    });
  });

  it('round-trips every id it creates', () => {
    expect(parseRequestId(createShutdownRequestId('gamma', { now }))).toMatchObject({
      kind: 'shutdown',
      recipient: 'gamma',
      createdAt: now(),
    });
    expect(parseRequestId(createPlanApprovalRequestId('b', 't', { now }))).toMatchObject({
      kind: 'plan_approval',
      agentName: 'b',
      teamName: 't',
    });
    expect(parseRequestId(createPermissionRequestId({ now })).kind).toBe('permission');
    expect(parseRequestId(createSandboxRequestId({ now })).kind).toBe('sandbox');
  });

  it('refuses anything else with INVALID_INPUT', () => {
    for (const value of [
      '',
      'shutdown-@alpha',
      'shutdown-12',
      'plan_approval-12@beta',
      'perm-12',
      'perm-x-abc',
      'PERM-1-abc',
      'hello',
    ]) {
      let thrown: unknown;
      try {
        parseRequestId(value);
      } catch (error) {
        thrown = error;
      }
      expect(MusterError.hasCode(thrown, 'INVALID_INPUT'), value).toBe(true);
    }
  });
});
