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
