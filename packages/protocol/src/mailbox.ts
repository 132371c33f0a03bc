import { z } from 'zod';
import { IsoTimestampSchema } from './common.js';

/** One entry in an inbox file: a free-text message or a JSON-encoded protocol message. */
export const InboxMessageSchema = z
  .looseObject({
    /** Sender's agent name (not the `name@team` id). */
    from: z.string().min(1),
    /** Free text, or a protocol message `JSON.stringify`'d without spaces. */
    text: z.string(),
    /** 5–10 word preview; only on plain messages and broadcasts. */
    summary: z.string().optional(),
    /** When it was sent, ISO-8601 with milliseconds. */
    timestamp: IsoTimestampSchema,
    /** Sender's color; absent when the sender is the lead. */
    color: z.string().optional(),
    /** Whether the recipient has read it. */
    read: z.boolean(),
  })
  .meta({
    id: 'InboxMessage',
    description: 'One entry in teams/{team}/inboxes/{agent}.json.',
  });
export type InboxMessage = z.infer<typeof InboxMessageSchema>;

/** `teams/{team}/inboxes/{agent}.json`: every message sent to one agent, oldest first. */
export const InboxSchema = z.array(InboxMessageSchema).meta({
  id: 'Inbox',
  description: 'teams/{team}/inboxes/{agent}.json: messages to one agent, oldest first.',
});
export type Inbox = z.infer<typeof InboxSchema>;
