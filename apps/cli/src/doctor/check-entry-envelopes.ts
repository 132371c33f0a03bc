import { TEAM_LEAD_NAME, type TeamConfig } from '@muster/protocol';
import type { Finding } from './doctor-types.js';
import type { FileValidator } from './file-validator.js';
import type { ScannedInbox } from './scanned-team.js';

/** The 2.1.330 envelope fields: an entry carrying any of them must be a whole v2 entry. */
const ENVELOPE_FIELDS = ['msgV', 'msg_id', 'type', 'lead_sig'] as const;

/** The envelope fields of an inbox entry, as the doctor reads them. */
interface EntryEnvelope {
  from?: unknown;
  msg_id?: unknown;
  lead_sig?: unknown;
}

/** The lead's member name in a config (`team-lead` unless the config names another). */
function leadName(config: TeamConfig): string {
  return (
    config.members.find((member) => member.agentId === config.leadAgentId)?.name ?? TEAM_LEAD_NAME
  );
}

/**
 * Checks the 2.1.330 envelopes of every entry in a team's inboxes: an entry carrying one is
 * a whole v2 entry (schemas/v2 InboxMessage), `lead_sig` only on entries from the lead (only the lead holds
 * a signing key), and every `msg_id` used once across the team (a pane teammate refuses a
 * reused one as a replay, so the second copy is never delivered).
 */
export function checkEntryEnvelopes(
  config: TeamConfig,
  inboxes: readonly ScannedInbox[],
  validator: FileValidator,
): Finding[] {
  const findings: Finding[] = [];
  const lead = leadName(config);
  const firstSeen = new Map<string, string>();
  for (const inbox of inboxes) {
    (inbox.messages ?? []).forEach((message, index) => {
      const entry = message as EntryEnvelope;
      const where = `entry ${index} (from ${String(entry.from)})`;
      // Entries without the envelope are still delivered by 2.1.330; with it, it must be whole.
      const enveloped = ENVELOPE_FIELDS.some((field) => field in entry);
      const problems = enveloped ? validator.validate('InboxMessage', entry, 'v2') : [];
      if (problems.length > 0) {
        findings.push({
          severity: 'problem',
          code: 'MALFORMED_ENTRY',
          file: inbox.file,
          message: `${where} is not a valid 2.1.330 inbox entry (${problems.join('; ')}; see schemas/v2/InboxMessage.schema.json). Claude Code 2.1.330 drops such entries unread; remove the entry or correct those fields.`,
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
