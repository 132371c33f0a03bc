import type { TeamDialect } from './create-team.js';

/**
 * The dialect a config speaks: `v2` when it says `protocolVersion: 2` (a muster team) or
 * carries a `leadProcess` object (a Claude Code 2.1.330 session team), `v1` otherwise. The
 * same rule as `teamDialect` in `@muster/protocol`.
 */
export function configDialect(config: unknown): TeamDialect {
  if (typeof config !== 'object' || config === null || Array.isArray(config)) return 'v1';
  const record = config as { protocolVersion?: unknown; leadProcess?: unknown };
  if (record.protocolVersion === 2) return 'v2';
  const leadProcess = record.leadProcess;
  const isRecord =
    typeof leadProcess === 'object' && leadProcess !== null && !Array.isArray(leadProcess);
  return isRecord ? 'v2' : 'v1';
}
