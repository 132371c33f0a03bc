// The error of the definition, tool-pool, prompt and model parts of @muster/agents: a caller
// passed something that cannot be used (a bad model value, a malformed option).
import { MusterError } from '@muster/protocol';

/** What went wrong, as a stable code. */
export type AgentDefinitionErrorCode = 'INVALID_INPUT' | 'INVALID_MODEL' | 'UNKNOWN_AGENT_TYPE';

/**
 * Thrown by `loadAgentDefinitions`, `resolveToolPool`, `buildSystemPrompt` and
 * `resolveAgentModel` for input they cannot use; the message names the value, where it came
 * from, and what to do instead.
 */
export class AgentDefinitionError extends MusterError<AgentDefinitionErrorCode> {}
