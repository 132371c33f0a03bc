import {
  createEntryVerifier,
  LEAD_CONTROL_MESSAGE_TYPES,
  parseVerifyKey,
  type EntryVerdict,
  type LedgerReader,
} from '@muster/provenance';
import { TEAM_LEAD_NAME, type InboxMessage, type ProtocolMessage } from '@muster/protocol';
import type { AuditSink } from './audit-log.js';
import { protocolMessageOf, type MessageDelivery } from './messenger.js';
import { PermissionsError } from './permissions-error.js';

/**
 * Anything that classifies inbox entries the way `createEntryVerifier` from
 * `@muster/provenance` does. It must remember the `msg_id`s it verified (a second entry with
 * the same id is `forged`), so call it once per entry: {@link LeadTrust} does.
 */
export interface LeadEntryVerifier {
  /** Classifies one entry as it was read from the inbox. */
  check(entry: unknown): { verdict: EntryVerdict; reason: string };
}

/** What {@link LeadTrust.classify} decided about one control message. */
export interface ControlVerdict {
  /** Whether the message may take effect (it provably comes from the lead's runtime). */
  accepted: boolean;
  /** `verified`, `forged` or `unverifiable` (from the verifier), or `not-lead` for another sender. */
  verdict: EntryVerdict | 'not-lead';
  /** Why, in words. */
  reason: string;
}

/**
 * A member's judge of lead control messages (`LEAD_CONTROL_MESSAGE_TYPES`: permission and
 * sandbox answers, mode changes, team-wide paths, plan answers, shutdown requests). Every
 * handler that acts on one asks {@link admit} first; the verdict is worked out once per entry
 * (handlers share it) and a refusal is audited once, as `control_refused`.
 */
export interface LeadTrust {
  /** The member this trust belongs to. */
  readonly agentName: string;
  /** The lead's name; only entries from it can be control messages that take effect. */
  readonly leadName: string;
  /** Whether the message is a lead control message (any sender). */
  isControlMessage(message: Pick<InboxMessage, 'text'>): boolean;
  /** Judges an entry (cached per entry object: a second call returns the first verdict). */
  classify(message: InboxMessage, delivery?: MessageDelivery): ControlVerdict;
  /**
   * True when the control message may take effect. Otherwise audits the refusal (once per
   * entry: who claimed to send it, its type and msg_id, and why) and returns false.
   */
  admit(message: InboxMessage, delivery?: MessageDelivery): Promise<boolean>;
  /**
   * Refuses a control message that was verified but cannot be applied as it stands (it
   * answers no pending request, or approves other input than was asked): audited as
   * `control_refused` with the reason.
   */
  refuse(message: InboxMessage, reason: string, details?: Record<string, unknown>): Promise<void>;
}

/** Options of {@link createLeadTrust}. Give `verifyKey`, `ledger` or `verifier`. */
export interface LeadTrustOptions {
  /** The member's name. */
  agentName: string;
  /** The lead's name. Default `team-lead`. */
  leadName?: string;
  /** Where refusals are recorded. */
  audit?: AuditSink;
  /**
   * A process member: the verify key its lead handed it at launch
   * (`--lead-verify-key <epochMs>.<base64url SPKI>`; see `leadVerifyKeyFromArguments`).
   */
  verifyKey?: string;
  /**
   * An in-process member: the ledger of the lead runtime's mailbox in this process (the
   * `msg_id`s it wrote). Only entries this process wrote count as the lead's.
   */
  ledger?: LedgerReader;
  /** A verifier made elsewhere (instead of `verifyKey`/`ledger`). */
  verifier?: LeadEntryVerifier;
  /**
   * When the member's process started (epoch ms): signed entries stamped earlier are refused
   * (with 120 s of grace for a key that new). Default: this process's start.
   */
  processStartedAt?: number;
  /** Whether a name is a member of the team (tells forged from unverifiable senders). */
  isMember?: (name: string) => boolean;
}

const CONTROL_TYPES: ReadonlySet<string> = new Set(LEAD_CONTROL_MESSAGE_TYPES);

/** Names a payload can claim as its sender, by message type. */
function claimedSenderOf(message: ProtocolMessage): string | undefined {
  const from = (message as { from?: unknown }).from;
  return typeof from === 'string' ? from : undefined;
}

/** Creates a member's {@link LeadTrust}. Throws `INVALID_INPUT` for an unusable verify key. */
export function createLeadTrust(options: LeadTrustOptions): LeadTrust {
  const { agentName } = options;
  if (typeof agentName !== 'string' || agentName === '') {
    throw new PermissionsError({
      code: 'INVALID_INPUT',
      message: `createLeadTrust needs the member's agentName (a non-empty string), not ${JSON.stringify(agentName)}.`,
    });
  }
  const leadName = options.leadName ?? TEAM_LEAD_NAME;
  const verifier = options.verifier ?? buildVerifier(options, leadName);
  const verdicts = new WeakMap<object, ControlVerdict>();
  const audited = new WeakSet<object>();

  const audit = async (
    message: InboxMessage,
    reason: string,
    outcome: string,
    extra: Record<string, unknown> = {},
  ) => {
    if (audited.has(message)) return;
    audited.add(message);
    if (options.audit === undefined) return;
    const protocol = protocolMessageOf(message);
    const requestId = protocol === undefined ? undefined : requestIdOf(protocol);
    await options.audit.append({
      kind: 'control_refused',
      actor: agentName,
      subject: message.from,
      ...(requestId === undefined ? {} : { requestId }),
      outcome,
      detail: reason,
      data: {
        type: protocol?.type ?? 'text',
        claimedFrom: message.from,
        ...(typeof message.msg_id === 'string' ? { msgId: message.msg_id } : {}),
        signed: typeof message.lead_sig === 'string',
        ...extra,
      },
    });
  };

  const trust: LeadTrust = {
    agentName,
    leadName,
    isControlMessage(message) {
      const protocol = protocolMessageOf(message);
      return protocol !== undefined && CONTROL_TYPES.has(protocol.type);
    },
    classify(message, delivery) {
      const cached = verdicts.get(message);
      if (cached !== undefined) return cached;
      const verdict = judge(message, delivery);
      verdicts.set(message, verdict);
      return verdict;
    },
    async admit(message, delivery) {
      const verdict = trust.classify(message, delivery);
      if (verdict.accepted) return true;
      await audit(message, verdict.reason, verdict.verdict, { via: delivery?.via ?? 'mailbox' });
      return false;
    },
    async refuse(message, reason, details = {}) {
      await audit(message, reason, 'refused', details);
    },
  };

  function judge(message: InboxMessage, delivery: MessageDelivery | undefined): ControlVerdict {
    const protocol = protocolMessageOf(message);
    const type = protocol?.type ?? 'message';
    if (message.from !== leadName) {
      return {
        accepted: false,
        verdict: 'not-lead',
        reason: `${type} from ${message.from}: only the lead ${leadName} may send it to ${agentName}`,
      };
    }
    const claimed = protocol === undefined ? undefined : claimedSenderOf(protocol);
    if (claimed !== undefined && claimed !== leadName) {
      return {
        accepted: false,
        verdict: 'forged',
        reason: `${type} in an entry from ${leadName} names ${claimed} as its sender inside; a lead's own message names the lead`,
      };
    }
    if (delivery?.via === 'in-process') {
      // Handed over in memory by the router of this very process: nothing on disk wrote it.
      return {
        accepted: true,
        verdict: 'verified',
        reason: 'handed over in memory by this process',
      };
    }
    const result = verifier.check(message);
    if (result.verdict === 'verified') return { accepted: true, ...result };
    return {
      accepted: false,
      verdict: result.verdict,
      reason: `${type} claiming to come from ${leadName} is ${result.verdict}: ${result.reason}`,
    };
  }

  return trust;
}

function buildVerifier(options: LeadTrustOptions, leadName: string): LeadEntryVerifier {
  if (options.verifyKey === undefined && options.ledger === undefined) {
    throw new PermissionsError({
      code: 'INVALID_INPUT',
      message: `createLeadTrust for ${options.agentName} needs verifyKey (a member in its own process: the key from --lead-verify-key), ledger (an in-process member: the lead runtime's message ledger) or verifier. Without one, nothing could ever be verified as the lead's.`,
    });
  }
  if (options.verifyKey !== undefined) {
    try {
      parseVerifyKey(options.verifyKey);
    } catch (error) {
      throw new PermissionsError({
        code: 'INVALID_INPUT',
        message: `The lead verify key of ${options.agentName} is unusable (${(error as Error).message}). Pass the value of --lead-verify-key exactly as the lead wrote it: "<epochMs>.<base64url SPKI>".`,
        cause: error,
      });
    }
  }
  return createEntryVerifier({
    leadName,
    // Bind ledger entries to this member's inbox: the lead's entry to another member, copied
    // here, is not this member's.
    recipient: options.agentName,
    ...(options.verifyKey === undefined ? {} : { verifyKey: options.verifyKey }),
    ...(options.ledger === undefined ? {} : { ledger: options.ledger }),
    ...(options.isMember === undefined ? {} : { isMember: options.isMember }),
    processStartedAt: options.processStartedAt ?? Math.floor(performance.timeOrigin),
  });
}

/** The request id a control message answers, when it has one. */
export function requestIdOf(message: ProtocolMessage): string | undefined {
  const record = message as { request_id?: unknown; requestId?: unknown };
  if (typeof record.request_id === 'string') return record.request_id;
  if (typeof record.requestId === 'string') return record.requestId;
  return undefined;
}
