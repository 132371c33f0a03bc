import { TEAM_PROTOCOL_VERSION_V2 } from './team.js';

/**
 * Which version of the team files a team speaks: `v1` is Claude Code 2.1.45's (and muster's
 * teams created before v2), `v2` is Claude Code 2.1.330's (session teams, inbox entries with
 * `msgV`/`msg_id`/`type`, delivery by removal, signed lead entries), also spoken by the teams
 * muster creates with `protocolVersion: 2`.
 */
export type ProtocolDialect = 'v1' | 'v2';

/** Every dialect, oldest first. */
export const PROTOCOL_DIALECTS = ['v1', 'v2'] as const satisfies readonly ProtocolDialect[];

/**
 * The dialect a team speaks, decided from its `config.json` (parsed or not): `v2` when the
 * config says `protocolVersion: 2` (a muster team) or carries a `leadProcess` object (a
 * Claude Code 2.1.330 session team), `v1` otherwise, including for anything that is not an
 * object. Never throws: validating the config is the caller's business.
 */
export function teamDialect(config: unknown): ProtocolDialect {
  if (typeof config !== 'object' || config === null || Array.isArray(config)) return 'v1';
  const record = config as { protocolVersion?: unknown; leadProcess?: unknown };
  if (record.protocolVersion === TEAM_PROTOCOL_VERSION_V2) return 'v2';
  const leadProcess = record.leadProcess;
  if (typeof leadProcess === 'object' && leadProcess !== null && !Array.isArray(leadProcess)) {
    return 'v2';
  }
  return 'v1';
}
