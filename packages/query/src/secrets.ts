// Keeps model credentials away from tool processes and out of transcripts: the environment a
// tool's child process starts from never holds them, and every transcript line is redacted.
import {
  isLeadLinkVariable,
  isModelCredentialVariable as isProtocolModelCredentialVariable,
  MODEL_CREDENTIAL_PREFIXES as PROTOCOL_MODEL_CREDENTIAL_PREFIXES,
  MODEL_CREDENTIAL_VARIABLES as PROTOCOL_MODEL_CREDENTIAL_VARIABLES,
} from '@muster/protocol';
import { QueryError } from './query-error.js';

/**
 * Environment variables that hold a credential for the model API (Anthropic, Bedrock, Vertex,
 * Foundry, or Claude Code's OAuth). `scrubEnvironment` drops them, and every variable whose name
 * starts with one of {@link MODEL_CREDENTIAL_PREFIXES}. The list is `@muster/protocol`'s, which
 * `@muster/backends` uses too.
 */
export const MODEL_CREDENTIAL_VARIABLES: readonly string[] = PROTOCOL_MODEL_CREDENTIAL_VARIABLES;

/**
 * Name prefixes of model-provider settings that may carry credentials (`ANTHROPIC_BEDROCK_*`,
 * `ANTHROPIC_VERTEX_*`): tools never need them, so `scrubEnvironment` drops them all.
 */
export const MODEL_CREDENTIAL_PREFIXES: readonly string[] = PROTOCOL_MODEL_CREDENTIAL_PREFIXES;

/** Shortest secret `createSecretRedactor` replaces: shorter strings are too common to redact safely. */
export const MINIMUM_SECRET_LENGTH = 8;

/** What `createSecretRedactor` puts where a secret was. */
export const REDACTED_TEXT = '[redacted]';

/** Whether `name` is a model credential variable (exact name or a credential prefix). */
export function isModelCredentialVariable(name: string): boolean {
  return isProtocolModelCredentialVariable(name);
}

function checkEnvironment(
  environment: unknown,
  caller: string,
): asserts environment is Readonly<Record<string, unknown>> {
  if (typeof environment !== 'object' || environment === null || Array.isArray(environment)) {
    throw new QueryError({
      code: 'INVALID_OPTIONS',
      message: `${caller}: the environment must be an object of variable names to strings (like process.env), got ${Array.isArray(environment) ? 'an array' : String(environment)}`,
    });
  }
}

/**
 * The environment a tool's child process starts from: a copy of `environment` without
 * undefined (or non-string) values, without any model credential
 * ({@link MODEL_CREDENTIAL_VARIABLES}, {@link MODEL_CREDENTIAL_PREFIXES}) and without the lead
 * link variables of a member process (`LEAD_LINK_VARIABLES` of `@muster/protocol`: its socket,
 * agent id and secret), so a tool command can never speak to the lead as the member. Never
 * changes its input.
 */
export function scrubEnvironment(
  environment: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  checkEnvironment(environment, 'scrubEnvironment');
  const scrubbed: Record<string, string> = {};
  for (const [name, value] of Object.entries(environment)) {
    if (typeof value !== 'string' || isModelCredentialVariable(name) || isLeadLinkVariable(name)) {
      continue;
    }
    scrubbed[name] = value;
  }
  return scrubbed;
}

/**
 * The values of the model credentials in `environment` (what `scrubEnvironment` removes), for
 * `createSecretRedactor`. Empty values are left out.
 */
export function credentialValues(
  environment: Readonly<Record<string, string | undefined>>,
): string[] {
  checkEnvironment(environment, 'credentialValues');
  const values: string[] = [];
  for (const [name, value] of Object.entries(environment)) {
    if (typeof value === 'string' && value !== '' && isModelCredentialVariable(name)) {
      values.push(value);
    }
  }
  return values;
}

/**
 * A function that replaces every occurrence of each secret (at least
 * {@link MINIMUM_SECRET_LENGTH} characters; shorter ones, empty ones and non-strings are ignored)
 * with `[redacted]`. Longer secrets are replaced first, so a secret that contains another is
 * redacted whole. The secrets are copied: changing the array later changes nothing.
 */
export function createSecretRedactor(secrets: readonly string[]): (text: string) => string {
  if (!Array.isArray(secrets)) {
    throw new QueryError({
      code: 'INVALID_OPTIONS',
      message: `createSecretRedactor: secrets must be an array of strings (API keys, tokens), got ${typeof secrets}`,
    });
  }
  const kept = [
    ...new Set(
      secrets.filter(
        (secret): secret is string =>
          typeof secret === 'string' && secret.length >= MINIMUM_SECRET_LENGTH,
      ),
    ),
  ].sort((left, right) => right.length - left.length);
  return (text: string): string => {
    if (typeof text !== 'string') return text;
    let redacted = text;
    for (const secret of kept) {
      if (redacted.includes(secret)) redacted = redacted.split(secret).join(REDACTED_TEXT);
    }
    return redacted;
  };
}
