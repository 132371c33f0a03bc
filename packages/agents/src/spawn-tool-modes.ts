// The permission mode a spawned agent gets: what its definition or the tool call asks for, but
// never wider than the mode of the agent that spawns it.
import type { PermissionMode } from '@muster/protocol';

const RANK: Readonly<Record<string, number>> = Object.freeze({
  plan: 0,
  dontAsk: 1,
  default: 1,
  delegate: 1,
  acceptEdits: 2,
  auto: 2,
  bypassPermissions: 3,
});

/** The mode to use and, when the request was narrowed, why. */
export interface EffectiveMode {
  mode: PermissionMode | undefined;
  notice?: string;
}

/**
 * Clamps `requested` to `parent`: a wider mode (plan < default/dontAsk < acceptEdits <
 * bypassPermissions) becomes the parent's own; under a `plan` parent only `plan` is allowed.
 * `undefined` (inherit) stays undefined. `what` names the source for the notice.
 */
export function effectiveMode(
  requested: string | undefined,
  parent: PermissionMode,
  what: string,
): EffectiveMode {
  if (requested === undefined) return { mode: undefined };
  const wanted = RANK[requested];
  if (wanted === undefined) {
    return {
      mode: parent,
      notice: `${what} asks for an unknown permission mode "${requested}"; it runs in the parent's mode "${parent}".`,
    };
  }
  const allowed = RANK[parent] ?? 1;
  const wider = parent === 'plan' ? requested !== 'plan' : wanted > allowed;
  if (wider) {
    return {
      mode: parent,
      notice: `${what} asks for permission mode "${requested}", wider than the parent's "${parent}": it runs in "${parent}".`,
    };
  }
  return { mode: requested as PermissionMode };
}
