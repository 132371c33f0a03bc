import { TEAM_LEAD_NAME, type TeamConfig } from '@muster/protocol';
import type { Finding } from './doctor-types.js';
import type { ScannedInbox } from './scanned-team.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const LEAD_SIGNATURE = /^[A-Za-z0-9_-]{86}$/;

/** The envelope fields 2.1.330 adds to an inbox entry, as the doctor reads them. */
interface EntryEnvelope {
  from?: unknown;
  msgV?: unknown;
  msg_id?: unknown;
  type?: unknown;
  lead_sig?: unknown;
}

/**
 * What is wrong with one entry's 2.1.330 envelope (`msgV`, `msg_id`, `type`, `lead_sig`).
 * Entries without these fields are accepted (Claude Code 2.1.330 delivers them too); when a
 * field is there it must have the one shape Claude Code writes, or its readers drop the entry.
 */
export function envelopeProblems(entry: EntryEnvelope): string[] {
  const problems: string[] = [];
  if ('msgV' in entry && entry.msgV !== 1) {
    problems.push(`msgV is ${JSON.stringify(entry.msgV)}, not 1`);
  }
  if ('msg_id' in entry && (typeof entry.msg_id !== 'string' || !UUID.test(entry.msg_id))) {
    problems.push(`msg_id ${JSON.stringify(entry.msg_id)} is not a UUID`);
  }
  if ('type' in entry && entry.type !== 'message') {
    problems.push(`type is ${JSON.stringify(entry.type)}, not "message"`);
  }
  if (
    'lead_sig' in entry &&
    (typeof entry.lead_sig !== 'string' || !LEAD_SIGNATURE.test(entry.lead_sig))
  ) {
    problems.push('lead_sig is not 86 base64url characters (an Ed25519 signature)');
  }
  return problems;
}

/** The lead's member name in a config (`team-lead` unless the config names another). */
function leadName(config: TeamConfig): string {
  return (
    config.members.find((member) => member.agentId === config.leadAgentId)?.name ?? TEAM_LEAD_NAME
  );
}

/**
 * Checks the 2.1.330 envelopes of every entry in a team's inboxes: each envelope on its own
 * ({@link envelopeProblems}), `lead_sig` only on entries from the lead (only the lead holds
 * a signing key), and every `msg_id` used once across the team (a pane teammate refuses a
 * reused one as a replay, so the second copy is never delivered).
 */
export function checkEntryEnvelopes(
  config: TeamConfig,
  inboxes: readonly ScannedInbox[],
): Finding[] {
  const findings: Finding[] = [];
  const lead = leadName(config);
  const firstSeen = new Map<string, string>();
  for (const inbox of inboxes) {
    (inbox.messages ?? []).forEach((message, index) => {
      const entry = message as EntryEnvelope;
      const where = `entry ${index} (from ${String(entry.from)})`;
      const problems = envelopeProblems(entry);
      if (problems.length > 0) {
        findings.push({
          severity: 'problem',
          code: 'MALFORMED_ENTRY',
          file: inbox.file,
          message: `${where} has a broken message envelope: ${problems.join('; ')}. Claude Code 2.1.330 drops such entries unread; remove the entry or correct those fields.`,
        });
      }
      if ('lead_sig' in entry && entry.from !== lead) {
        findings.push({
          severity: 'problem',
          code: 'LEAD_SIGNATURE_FROM_NON_LEAD',
          file: inbox.file,
          message: `${where} carries a lead_sig, but only the lead ("${lead}") signs entries. A copied or forged entry; a teammate cannot be made to trust it. Remove the entry.`,
        });
      }
      if (typeof entry.msg_id === 'string') {
        const earlier = firstSeen.get(entry.msg_id);
        if (earlier !== undefined) {
          findings.push({
            severity: 'problem',
            code: 'DUPLICATE_MESSAGE_ID',
            file: inbox.file,
            message: `${where} reuses msg_id ${entry.msg_id}, already used by ${earlier}. Every entry needs its own msg_id: a pane teammate refuses the second one as a replay. Remove the copy (or give a genuinely new message a fresh UUID).`,
          });
        } else {
          firstSeen.set(entry.msg_id, `entry ${index} of ${inbox.agentFileName}'s inbox`);
        }
      }
    });
  }
  return findings;
}
