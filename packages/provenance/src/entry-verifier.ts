import { verifyLeadSignature } from './lead-key.js';
import { ProvenanceError } from './provenance-error.js';
import { parseVerifyKey, type ParsedVerifyKey } from './verify-key.js';

/** How far a verdict trusts an entry. */
export type EntryVerdict = 'verified' | 'forged' | 'unverifiable';

/** A verdict and, in words, why. */
export interface EntryCheck {
  /**
   * `verified`: written by this process (ledger) or carrying a valid `lead_sig`.
   * `forged`: claims the lead (or an in-process member) and is not proven, or carries a
   * bad signature, a reused `msg_id` or a stale time stamp. `unverifiable`: anyone else.
   */
  verdict: EntryVerdict;
  /** Why, naming the sender and what was missing or wrong. */
  reason: string;
}

/** What the verifier needs from a ledger: `createMessageLedger()` fits. */
export interface LedgerReader {
  /** True when this process wrote an entry with `msgId`. */
  has(msgId: string): boolean;
  /** When present, used instead of `has`: also compares the entry's signed fields. */
  matches?(entry: unknown, recipient?: string): boolean;
}

/** Options for `createEntryVerifier`; all optional, for one reader (one inbox). */
export interface EntryVerifierOptions {
  /** The lead's member name. Default `team-lead`; `user` and `system` also claim the lead. */
  leadName?: string;
  /** The reader's lead verify key (`--lead-verify-key`); without it no signature verifies. */
  verifyKey?: string;
  /** The ledger of entries this process wrote (for in-process members). */
  ledger?: LedgerReader;
  /**
   * The reader's own name (the inbox it reads). With a ledger that recorded recipients, an
   * entry the lead wrote to another member and someone copied here does not verify.
   */
  recipient?: string;
  /** When the reading process started (epoch ms): signed entries stamped earlier are refused. */
  processStartedAt?: number;
  /** Slack for a key made just before the process started. Default 120 000 ms, as 2.1.330. */
  graceMs?: number;
  /** True when a name is a current team member; others are `unverifiable` outsiders. */
  isMember?: (name: string) => boolean;
  /** True for members that run in the lead's process (`in-process`, `leader`). */
  inProcessNames?: (name: string) => boolean;
}

/** Classifies inbox entries as one reader receives them. */
export interface EntryVerifier {
  /**
   * Classifies one entry as it is delivered. Never throws for what is on disk. Remembers
   * the `msg_id` of every verified entry: the same `msg_id` again is `forged` (a replay),
   * so call it once per delivery, not to peek.
   */
  check(entry: unknown): EntryCheck;
}

/** The default grace for a key made shortly before its teammate process started. */
export const DEFAULT_GRACE_MS = 120_000;

function invalidOption(message: string): never {
  throw new ProvenanceError({
    code: 'INVALID_OPTIONS',
    message: `createEntryVerifier: ${message}`,
  });
}

function checkOptions(options: EntryVerifierOptions): void {
  if (typeof options !== 'object' || options === null) invalidOption('options must be an object.');
  const { leadName, processStartedAt, graceMs, isMember, inProcessNames, ledger, recipient } =
    options;
  if (recipient !== undefined && (typeof recipient !== 'string' || recipient === '')) {
    invalidOption(`recipient must be the reader's member name, got ${JSON.stringify(recipient)}.`);
  }
  if (leadName !== undefined && (typeof leadName !== 'string' || leadName === '')) {
    invalidOption(`leadName must be a member name, got ${JSON.stringify(leadName)}.`);
  }
  if (
    processStartedAt !== undefined &&
    !(Number.isFinite(processStartedAt) && processStartedAt >= 0)
  ) {
    invalidOption(`processStartedAt must be epoch milliseconds, got ${String(processStartedAt)}.`);
  }
  if (graceMs !== undefined && !(Number.isFinite(graceMs) && graceMs >= 0)) {
    invalidOption(`graceMs must be a number of milliseconds >= 0, got ${String(graceMs)}.`);
  }
  for (const [name, value] of [
    ['isMember', isMember],
    ['inProcessNames', inProcessNames],
  ] as const) {
    if (value !== undefined && typeof value !== 'function')
      invalidOption(`${name} must be a function.`);
  }
  if (ledger !== undefined && typeof ledger?.has !== 'function') {
    invalidOption('ledger must have has(msgId) (use createMessageLedger()).');
  }
}

/**
 * Creates a verifier for one reader, classifying entries as Claude Code 2.1.330 does
 * (FORMAT.md, "Provenance"): `verified` when this process wrote the entry (ledger) or its
 * `lead_sig` checks out with the reader's verify key; `forged` when it claims the lead
 * (`leadName`, `user`, `system`) or an in-process member without such proof, and whenever
 * a signature is wrong, a verified `msg_id` comes again, or a signed entry is older than
 * the reader's process (with `graceMs` when the key is that new) or than its key;
 * `unverifiable` otherwise (outsiders and pane teammates, which do not sign). Throws
 * `ProvenanceError` for a malformed `verifyKey` or options.
 */
export function createEntryVerifier(options: EntryVerifierOptions = {}): EntryVerifier {
  checkOptions(options);
  const leadName = options.leadName ?? 'team-lead';
  const graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
  const key: ParsedVerifyKey | undefined =
    options.verifyKey === undefined ? undefined : parseVerifyKey(options.verifyKey);
  const leadNames = new Set([leadName, 'user', 'system']);
  const seen = new Set<string>();

  const claimsLead = (from: string): boolean =>
    leadNames.has(from) || options.inProcessNames?.(from) === true;
  const writtenHere = (entry: object, msgId: string): boolean =>
    options.ledger === undefined
      ? false
      : options.ledger.matches !== undefined
        ? options.ledger.matches(entry, options.recipient)
        : options.ledger.has(msgId);

  function staleness(timestamp: string, signingKey: ParsedVerifyKey): string | undefined {
    const stamped = Date.parse(timestamp);
    if (Number.isNaN(stamped)) return `its timestamp ${JSON.stringify(timestamp)} is not a date`;
    if (stamped < signingKey.createdAt - graceMs) {
      return (
        `it is stamped ${timestamp}, more than ${graceMs} ms before its key was made ` +
        `(${new Date(signingKey.createdAt).toISOString()})`
      );
    }
    const started = options.processStartedAt;
    if (started === undefined) return undefined;
    const keyIsNew = started - signingKey.createdAt <= graceMs;
    const earliest = keyIsNew ? started - graceMs : started;
    if (stamped < earliest) {
      return (
        `it is stamped ${timestamp}, before this process started ` +
        `(${new Date(started).toISOString()}${keyIsNew ? `, less ${graceMs} ms of grace` : ''})`
      );
    }
    return undefined;
  }

  function classify(entry: unknown): EntryCheck {
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
      return { verdict: 'forged', reason: 'not an inbox entry (not an object)' };
    }
    const record = entry as Record<string, unknown>;
    if (typeof record.from !== 'string' || record.from === '') {
      return { verdict: 'forged', reason: 'the entry names no sender (from)' };
    }
    const from = record.from;
    const msgId =
      typeof record.msg_id === 'string' && record.msg_id !== '' ? record.msg_id : undefined;
    const sender = JSON.stringify(from);
    if (msgId !== undefined && seen.has(msgId)) {
      return {
        verdict: 'forged',
        reason: `replayed: msg_id ${msgId} from ${sender} was already delivered`,
      };
    }
    if (msgId !== undefined && writtenHere(record, msgId)) {
      seen.add(msgId);
      return { verdict: 'verified', reason: `written by this process (msg_id ${msgId})` };
    }
    if (record.lead_sig !== undefined) {
      if (key === undefined) {
        return claimsLead(from)
          ? {
              verdict: 'forged',
              reason: `signed as from ${sender}, but this reader has no lead verify key to check it with`,
            }
          : {
              verdict: 'unverifiable',
              reason: `carries a lead_sig from ${sender}, but this reader has no lead verify key`,
            };
      }
      if (msgId === undefined) {
        return {
          verdict: 'forged',
          reason: `signed as from ${sender} but has no msg_id, so a replay could not be told apart`,
        };
      }
      if (!verifyLeadSignature(key, record)) {
        return {
          verdict: 'forged',
          reason: `lead_sig from ${sender} (msg_id ${msgId}) does not verify with the lead key made at ${key.createdAt}: the entry was changed or signed by another key`,
        };
      }
      const stale = staleness(record.timestamp as string, key);
      if (stale !== undefined) {
        return {
          verdict: 'forged',
          reason: `signed entry from ${sender} (msg_id ${msgId}) refused: ${stale}`,
        };
      }
      seen.add(msgId);
      return {
        verdict: 'verified',
        reason: `lead_sig verifies with the lead key made at ${key.createdAt}`,
      };
    }
    if (claimsLead(from)) {
      return {
        verdict: 'forged',
        reason: `claims to come from ${sender}, but is neither signed with this member's lead key nor written by this process`,
      };
    }
    if (options.isMember !== undefined && !options.isMember(from)) {
      return {
        verdict: 'unverifiable',
        reason: `from ${sender}, which is not a member of the team`,
      };
    }
    return {
      verdict: 'unverifiable',
      reason: `from teammate ${sender}; teammates do not sign their messages`,
    };
  }

  return Object.freeze({ check: classify });
}
