// The marker every process member starts with, so that the lead's process reaper finds the
// member's own tool processes (and theirs) when the lead is SIGKILLed: a member process may be
// ended with its lead, but what its Bash tool started in other process groups is not.
import { BackendError } from './backend-error.js';
import { processReaperAvailability, sharedProcessReaper } from './process-reaper.js';

/**
 * `{ MUSTER_LEAD_RUN: <id> }` of this lead process's shared reaper (started at the first call),
 * or `{}` where no reaper can run (no `/proc`: see `processReaperAvailability`).
 * A reaper that cannot start is an error naming the member and the backend.
 */
export async function leadRunMarkerEnvironment(
  backendName: string,
  agentId: string,
): Promise<Readonly<Record<string, string>>> {
  if (!processReaperAvailability().available) return {};
  try {
    return (await sharedProcessReaper()).environment;
  } catch (error) {
    throw new BackendError({
      code: 'UNAVAILABLE',
      message: `${backendName} member ${agentId}: ${(error as Error).message} Without the process reaper, tool processes the member starts could outlive a SIGKILLed lead; fix the cause and spawn again.`,
      details: { agentId },
      cause: error,
    });
  }
}
