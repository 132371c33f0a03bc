// Names of environment variables that more than one package must agree on: the model
// credentials no tool or member process gets unless it is handed them on purpose, and the lead
// link variables a process backend gives a member so it can connect back to its lead. Only the
// names live here (protocol does no I/O); `@muster/query` scrubs tool environments with them
// and `@muster/backends` builds member environments with them.

/**
 * Environment variables that hold a credential for the model API (Anthropic, Bedrock, Vertex,
 * Foundry, or Claude Code's OAuth). Tool processes never get them; a member process gets them
 * only when its spawn spec names them.
 */
export const MODEL_CREDENTIAL_VARIABLES: readonly string[] = Object.freeze([
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'ANTHROPIC_CUSTOM_HEADERS',
  'ANTHROPIC_FOUNDRY_API_KEY',
  'CLAUDE_CODE_OAUTH_TOKEN',
  'AWS_BEARER_TOKEN_BEDROCK',
]);

/**
 * Name prefixes of model-provider settings that may carry credentials (`ANTHROPIC_BEDROCK_*`,
 * `ANTHROPIC_VERTEX_*`): every variable whose name starts with one counts as a credential.
 */
export const MODEL_CREDENTIAL_PREFIXES: readonly string[] = Object.freeze([
  'ANTHROPIC_BEDROCK_',
  'ANTHROPIC_VERTEX_',
]);

/** Whether `name` is a model credential variable (an exact name or one of the prefixes). */
export function isModelCredentialVariable(name: string): boolean {
  return (
    MODEL_CREDENTIAL_VARIABLES.includes(name) ||
    MODEL_CREDENTIAL_PREFIXES.some((prefix) => name.startsWith(prefix))
  );
}

/** Holds the path of the lead link's Unix socket a process member connects back to. */
export const LEAD_SOCKET_VARIABLE = 'MUSTER_LEAD_SOCKET';

/** Holds the member's agent id (`<name>@<team>`) it says hello as on the lead link. */
export const AGENT_ID_VARIABLE = 'MUSTER_AGENT_ID';

/**
 * Holds the secret the lead made for this one member at spawn; the lead link accepts the
 * member's hello only with it, so nothing else can claim to be that member.
 */
export const MEMBER_SECRET_VARIABLE = 'MUSTER_MEMBER_SECRET';

/**
 * Every lead link variable. They are for the member process itself: a tool process the member
 * starts (its Bash commands) must not inherit them, or it could speak for the member.
 */
export const LEAD_LINK_VARIABLES: readonly string[] = Object.freeze([
  LEAD_SOCKET_VARIABLE,
  AGENT_ID_VARIABLE,
  MEMBER_SECRET_VARIABLE,
]);

/** Whether `name` is one of the {@link LEAD_LINK_VARIABLES}. */
export function isLeadLinkVariable(name: string): boolean {
  return LEAD_LINK_VARIABLES.includes(name);
}

/**
 * Marks every process started on behalf of one lead run: `MUSTER_LEAD_RUN=<random id>` is in the
 * environment of each member's tool processes (and of process members), so that when the lead
 * dies, even by SIGKILL, its process reaper (`@muster/backends`) finds them in
 * `/proc/<pid>/environ` and ends them. The id is random per run and is not a secret: tool
 * processes keep it (it is neither a credential nor a lead link variable).
 */
export const LEAD_RUN_VARIABLE = 'MUSTER_LEAD_RUN';
