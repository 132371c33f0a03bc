// Small pieces of the teammate loop: the tool names it adds itself, its lead trust, and a
// promise of the lifecycle signal's abort that leaves no listener behind.
import { createLeadTrust, type AuditSink, type LeadTrust } from '@muster/permissions';
import { TEAM_LEAD_NAME } from '@muster/protocol';
import type { TeammateOptions } from './teammate-options.js';

/** The tools the loop adds itself: the seven team tools and ExitPlanMode. */
export const LOOP_TOOL_NAMES: ReadonlySet<string> = new Set([
  'TeamCreate',
  'TeamDelete',
  'SendMessage',
  'TaskCreate',
  'TaskGet',
  'TaskUpdate',
  'TaskList',
  'ExitPlanMode',
]);

/** The teammate's judge of lead control messages, from the trust material it was given. */
export function buildTrust(options: TeammateOptions, audit: AuditSink): LeadTrust {
  const material = options.leadTrust;
  if ('trust' in material) return material.trust;
  return createLeadTrust({
    agentName: options.agentName,
    leadName: TEAM_LEAD_NAME,
    audit,
    ...('verifyKey' in material ? { verifyKey: material.verifyKey } : { ledger: material.ledger }),
  });
}

/** Resolves when `signal` aborts; `dispose` removes its listener. */
export function abortedPromise(signal: AbortSignal): {
  promise: Promise<void>;
  dispose: () => void;
} {
  let dispose = () => undefined as void;
  const promise = new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const listener = () => resolve();
    signal.addEventListener('abort', listener, { once: true });
    dispose = () => signal.removeEventListener('abort', listener);
  });
  return { promise, dispose };
}
