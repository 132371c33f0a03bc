import path from 'node:path';
import { inboxEntryIdentity, readInboxHistory } from '@muster/mailbox';
import type { InboxMessage } from '@muster/protocol';

/** One entry of an inbox's conversation, as `muster inbox` and `watch` show it. */
export interface ConversationEntry {
  message: InboxMessage;
  /** Its position in the inbox file now; undefined once it was delivered (removed). */
  inboxIndex: number | undefined;
  /** Delivered: removed from the inbox (2.1.330, muster's archive) or marked read (2.1.45). */
  delivered: boolean;
}

/**
 * An inbox's whole conversation, oldest first: every entry muster recorded for it (its
 * history, its archive) and what the file holds now, each once. An entry no longer in the
 * file was delivered (Claude Code 2.1.330 removes what it delivers); one still there is
 * delivered only when it is marked read. Problems with history files go to `problems`.
 */
export async function readConversation(
  root: string,
  team: string,
  agent: string,
  current: readonly InboxMessage[],
  problems: string[],
): Promise<ConversationEntry[]> {
  const history = await readInboxHistory({
    root,
    team,
    agent,
    onProblem: (file, problem) => problems.push(`${path.basename(file)}: ${problem}`),
  });
  // Equal entries in one inbox are several entries: matched by count, in file order.
  const positions = new Map<string, number[]>();
  current.forEach((message, index) => {
    const identity = inboxEntryIdentity(message as unknown as Record<string, unknown>);
    positions.set(identity, [...(positions.get(identity) ?? []), index]);
  });
  return history.map(({ entry }) => {
    const identity = inboxEntryIdentity(entry as unknown as Record<string, unknown>);
    const index = positions.get(identity)?.shift();
    if (index === undefined) {
      return { message: entry, inboxIndex: undefined, delivered: true };
    }
    const message = current[index]!;
    return { message, inboxIndex: index, delivered: message.read };
  });
}

/** The conversation as inbox entries, delivered ones marked read (what the feed draws). */
export function conversationMessages(conversation: readonly ConversationEntry[]): InboxMessage[] {
  return conversation.map(({ message, delivered }) =>
    delivered && !message.read ? { ...message, read: true } : message,
  );
}
