import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  claudeCode2_1_330ReferenceDirectory,
  claudeCodeReferenceDirectory,
} from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import { teamDialect } from './dialect.js';
import { TeamConfigSchema } from './team.js';

const configOf = (root: string, state: string, team: string): unknown =>
  JSON.parse(readFileSync(path.join(root, state, 'teams', team, 'config.json'), 'utf8'));

describe('teamDialect', () => {
  it('reads the Claude Code 2.1.45 configs as v1', () => {
    const root = claudeCodeReferenceDirectory();
    for (const state of ['06-all-teammates-spawned', '11-all-shutdowns-approved']) {
      const config = configOf(root, state, 'conf-team');
      expect(teamDialect(config), state).toBe('v1');
      expect(teamDialect(TeamConfigSchema.parse(config)), state).toBe('v1');
    }
  });

  it('reads the Claude Code 2.1.330 session-team configs as v2 (by leadProcess)', () => {
    const root = claudeCode2_1_330ReferenceDirectory();
    for (const [state, team] of [
      ['in-process-07-all-teammates-spawned', 'session-c29861cf'],
      ['in-process-13-all-teammates-removed-after-shutdown', 'session-c29861cf'],
      ['tmux-08-permission-answered', 'session-7f85384e'],
    ] as const) {
      const config = configOf(root, state, team);
      expect(teamDialect(config), state).toBe('v2');
      expect(teamDialect(TeamConfigSchema.parse(config)), state).toBe('v2');
      expect(teamDialect({ ...(config as object), leadProcess: undefined }), state).toBe('v1');
    }
  });

  it('reads a muster team marked protocolVersion 2 as v2', () => {
    const config = { name: 't', createdAt: 1, leadAgentId: 'team-lead@t', members: [] };
    expect(teamDialect(config)).toBe('v1');
    expect(teamDialect({ ...config, protocolVersion: 2 })).toBe('v2');
    expect(TeamConfigSchema.safeParse({ ...config, protocolVersion: 2 }).success).toBe(true);
  });

  it('says v1 for anything that does not mark v2, without throwing', () => {
    for (const value of [
      undefined,
      null,
      'config',
      [],
      {},
      { protocolVersion: '2' },
      { protocolVersion: 1 },
      { protocolVersion: 3 },
      { leadProcess: null },
      { leadProcess: 'pid 1' },
      { leadProcess: [] },
    ]) {
      expect(teamDialect(value), JSON.stringify(value)).toBe('v1');
    }
  });

  it('refuses a config claiming a protocol version muster does not speak', () => {
    const result = TeamConfigSchema.safeParse({
      name: 't',
      createdAt: 1,
      leadAgentId: 'team-lead@t',
      members: [],
      protocolVersion: 3,
    });
    expect(result.success).toBe(false);
  });
});
