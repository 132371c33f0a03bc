// The model settings a lead hands to a process teammate explicitly: backends strip model
// credentials from members' environments, so a process member gets them only this way, and an
// in-process member (whose tools share the lead's process) never does.

/** The variables {@link pickModelEnvironment} takes from an environment. */
export const MODEL_ENVIRONMENT_VARIABLES: readonly string[] = Object.freeze([
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'ANTHROPIC_BASE_URL',
]);

/**
 * The model settings a process teammate needs, taken from `environment` (normally the lead's):
 * `ANTHROPIC_API_KEY`, `ANTHROPIC_AUTH_TOKEN` and `ANTHROPIC_BASE_URL` when set and not empty.
 * Pass the result as `modelEnvironment`.
 */
export function pickModelEnvironment(
  environment: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const name of MODEL_ENVIRONMENT_VARIABLES) {
    const value = environment[name];
    if (typeof value === 'string' && value !== '') picked[name] = value;
  }
  return picked;
}

/** Throws when `modelEnvironment` holds a value that is not a string. */
export function checkModelEnvironment(modelEnvironment: Record<string, string> | undefined): void {
  if (modelEnvironment === undefined) return;
  for (const [name, value] of Object.entries(modelEnvironment)) {
    if (typeof value !== 'string') {
      throw new Error(
        `spawnTeammate: modelEnvironment.${name} must be a string (pickModelEnvironment(process.env) builds the object).`,
      );
    }
  }
}
