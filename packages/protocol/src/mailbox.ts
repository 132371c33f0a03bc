import { z } from 'zod';
import { IsoTimestampSchema } from './common.js';

/** One entry in an inbox file: a free-text message or a JSON-encoded protocol message. */
export const InboxMessageSchema = z
  .looseObject({
    /** Sender's agent name (not the `name@team` id). */
    from: z.string().min(1).describe("Sender's agent name (not the name@team id)."),
    /** Free text, or a protocol message `JSON.stringify`'d without spaces. */
    text: z
      .string()
      .describe(
        'Free text, or a ProtocolMessage JSON-encoded without spaces. Text that does not parse as a known protocol message is free text.',
      ),
    /** 5–10 word preview; only on plain messages and broadcasts. */
    summary: z
      .string()
      .optional()
      .describe('5–10 word preview; only on plain messages and broadcasts.'),
    /** When it was sent, ISO-8601 with milliseconds. */
    timestamp: IsoTimestampSchema.describe(
      'When it was sent: ISO-8601 with milliseconds and Z, e.g. 2026-01-31T12:00:00.000Z.',
    ),
    /** Sender's color; absent when the sender is the lead. */
    color: z.string().optional().describe("Sender's color; absent when the sender is the lead."),
    /** Whether the recipient has read it. */
    read: z.boolean().describe('Whether the recipient has handled it.'),
  })
  .meta({
    id: 'InboxMessage',
    description:
      'One entry in teams/{team}/inboxes/{agent}.json. Unknown fields are allowed and must be kept when the file is rewritten.',
  });
export type InboxMessage = z.infer<typeof InboxMessageSchema>;

/** `teams/{team}/inboxes/{agent}.json`: every message sent to one agent, oldest first. */
export const InboxSchema = z.array(InboxMessageSchema).meta({
  id: 'Inbox',
  description:
    'teams/{team}/inboxes/{agent}.json: every message sent to one agent, oldest first. Other writers only ever append; entries are marked read by array index.',
});
export type Inbox = z.infer<typeof InboxSchema>;

/**
 * The largest message text muster sends: 256 KiB of UTF-8 (`text` of one inbox entry,
 * including an encoded protocol message). Generous for real messages — a long report, a
 * plan, a diff — while keeping every inbox rewrite and every screen that shows a message
 * bounded. Checked on send; entries already in an inbox (written by others) are read as
 * they are.
 */
export const MAXIMUM_MESSAGE_TEXT_BYTES = 256 * 1024;

/** `msgV` of the inbox entries dialect v2 writes: the entry format version. */
export const INBOX_MESSAGE_FORMAT_VERSION = 1 as const;

/** The envelope `type` of every dialect v2 inbox entry (protocol payloads included). */
export const INBOX_MESSAGE_ENVELOPE_TYPE = 'message' as const;

/** A `lead_sig`: an Ed25519 signature in base64url without padding (always 86 characters). */
export const LEAD_SIGNATURE_PATTERN = /^[A-Za-z0-9_-]{86}$/;

/**
 * One entry in a v2 inbox (Claude Code 2.1.330, and muster's own v2 teams). Keys are written
 * in the order from, text, summary?, timestamp, color?, msgV, msg_id, type, read[, lead_sig].
 */
export const InboxMessageV2Schema = z
  .looseObject({
    /** Sender's agent name (not the `name@team` id). */
    from: z.string().min(1).describe("Sender's agent name (not the name@team id)."),
    /** Free text, or a protocol message `JSON.stringify`'d without spaces. */
    text: z
      .string()
      .describe(
        'Free text, or a ProtocolMessage JSON-encoded without spaces (its kind is inside; the envelope type stays "message").',
      ),
    /** Short preview of a plain message; shown to the recipient. */
    summary: z
      .string()
      .optional()
      .describe(
        'Short preview of a plain message (at most 200 characters); shown to the recipient.',
      ),
    /** When it was sent, ISO-8601 with milliseconds. */
    timestamp: IsoTimestampSchema.describe(
      'When it was sent: ISO-8601 with milliseconds and Z, e.g. 2026-01-31T12:00:00.000Z.',
    ),
    /** Sender's color; absent when the sender is the lead. */
    color: z
      .string()
      .optional()
      .describe("Sender's color; absent when the sender is the lead and on plan_approval_request."),
    /** Entry format version, always 1. */
    msgV: z.literal(INBOX_MESSAGE_FORMAT_VERSION).describe('Entry format version; always 1.'),
    /** A fresh v4 UUID per entry: the entry's identity for delivery and provenance. */
    msg_id: z
      .uuid()
      .describe(
        "A fresh UUID (v4) per entry: the entry's identity. A retried write reuses it and a reader never delivers one twice; a reused msg_id on another entry is a replay.",
      ),
    /** Always `message`, protocol payloads included. */
    type: z
      .literal(INBOX_MESSAGE_ENVELOPE_TYPE)
      .describe('Envelope type; always "message", protocol payloads included.'),
    /** `false` when written; delivered entries are removed, not marked read. */
    read: z
      .boolean()
      .describe(
        'false when written. Readers deliver entries whose read is not true and then remove them from the file; true is never written.',
      ),
    /** The lead's Ed25519 signature, on entries the lead writes to a pane teammate. */
    lead_sig: z
      .string()
      .regex(LEAD_SIGNATURE_PATTERN, {
        message: 'expected an Ed25519 signature in base64url without padding (86 characters)',
      })
      .optional()
      .describe(
        'The lead\'s Ed25519 signature (base64url, 86 characters) over ["claude-team-lead-entry-v1", msg_id, from, timestamp, text, summary ?? null, color ?? null, from_plugin ?? null], on entries the lead writes to a pane teammate.',
      ),
    /** The plugin an entry came from (accepted by Claude Code 2.1.330's reader; signed). */
    from_plugin: z
      .string()
      .optional()
      .describe(
        "The plugin the entry came from; accepted by Claude Code 2.1.330's reader and covered by lead_sig.",
      ),
  })
  .meta({
    id: 'InboxMessage',
    description:
      'One entry in teams/{team}/inboxes/{agent}.json of a v2 team. Key order: from, text, summary?, timestamp, color?, msgV, msg_id, type, read[, lead_sig]. Unknown fields are allowed and must be kept; the signed fields of an entry someone else wrote must never change.',
  });
export type InboxMessageV2 = z.infer<typeof InboxMessageV2Schema>;

/** `teams/{team}/inboxes/{agent}.json` of a v2 team: the entries not yet delivered. */
export const InboxV2Schema = z.array(InboxMessageV2Schema).meta({
  id: 'Inbox',
  description:
    'teams/{team}/inboxes/{agent}.json of a v2 team: the entries not yet delivered, oldest first. Every write is a temp file (<name>.json.tmp.<8 hex>) renamed over the inbox, under <name>.json.lock. A reader delivers the entries whose read is not true and removes them, matched by msg_id (Claude Code 2.1.330 matches from|timestamp|text), never by index. Readers also accept v1 entries (without msgV, msg_id, type).',
});
export type InboxV2 = z.infer<typeof InboxV2Schema>;
