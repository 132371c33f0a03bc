import { existsSync } from 'node:fs';
import { createMailbox, inboxHistoryAgents } from '@muster/mailbox';
import type { InboxMessage, PermissionRequest } from '@muster/protocol';
import { parseProtocolMessage } from '@muster/protocol';
import { CliError } from '../cli-error.js';
import { printJson, printLine, type CommandContext } from '../context.js';
import { isSessionTeam } from '../session/session-state.js';
import { paint, symbol } from '../terminal-style.js';
import { escapeTerminalText } from '../terminal-text.js';
import { clockTime } from '../watch/clock-time.js';
import { readConversation, type ConversationEntry } from '../watch/inbox-history-view.js';
import { describeMessage } from '../watch/message-words.js';
import { resolveTeamOrEndedSession } from './resolve-team.js';
import { readTeamConfig, requireMemberName } from './team-members.js';

/** Each entry in words, knowing the permission requests and plan approvals before it. */
function describeConversation(conversation: readonly ConversationEntry[], agent: string) {
  const permissionRequests = new Map<string, PermissionRequest>();
  const approvedPlans = new Set<string>();
  return conversation.map((item) => {
    const words = describeMessage(item.message, {
      recipient: agent,
      permissionRequests,
      approvedPlans,
    });
    const protocol = parseProtocolMessage(item.message.text);
    if (protocol?.type === 'permission_request') {
      permissionRequests.set(protocol.request_id, protocol);
    }
    if (protocol?.type === 'plan_approval_response' && protocol.approved) {
      approvedPlans.add(protocol.requestId);
    }
    return { ...item, words };
  });
}

/** `muster inbox <agent> [--unread] [--mark-read]`: the inbox with what muster recorded. */
export async function inboxCommand(
  context: CommandContext,
  agent: string,
  options: { unread?: boolean; markRead?: boolean },
) {
  const { team, ended, note } = await resolveTeamOrEndedSession(context);
  const { root } = context;
  if (note !== undefined) context.streams.stderr.write(`${escapeTerminalText(note)}\n`);
  let current: InboxMessage[] = [];
  const mailbox = createMailbox({ root, team });
  if (ended) {
    if (options.markRead) {
      throw new CliError({
        code: 'REFUSED',
        message: `Session ${team} has ended and its inboxes went with its team folder: there is nothing to mark read. Drop --mark-read to see what muster recorded.`,
        details: { team },
      });
    }
    const known = await inboxHistoryAgents({ root, team });
    if (!known.includes(agent)) {
      const said = `Session ${team} has ended (its team folder is gone), and muster recorded no messages of ${agent}'s inbox in it: muster records a team's messages while muster watch runs on it.${known.length > 0 ? ` Recorded inboxes: ${known.join(', ')}.` : ''}`;
      if (context.json) {
        printJson(context, {
          team,
          agent,
          ended,
          inbox: null,
          total: 0,
          unread: 0,
          messages: [],
          recorded: known,
        });
      } else {
        printLine(context, escapeTerminalText(said));
      }
      return;
    }
  } else {
    const config = await readTeamConfig(root, team);
    // An inbox can outlive its member (muster doctor reports it); reading it is still allowed.
    if (!existsSync(mailbox.inboxLocation(agent))) {
      requireMemberName(config, team, agent, 'Agent');
    }
    if (options.markRead && isSessionTeam(config)) {
      // 2.1.330 never delivers an entry marked read: it drops it at its next rewrite.
      throw new CliError({
        code: 'REFUSED',
        message: `Team ${team} is a Claude Code 2.1.330 session: it removes entries as it delivers them, and an entry marked read would never reach ${agent}, only be dropped. Nothing was changed; drop --mark-read.`,
        details: { team, agent },
      });
    }
    current = await mailbox.readAll(agent);
  }
  const problems: string[] = [];
  const conversation = describeConversation(
    await readConversation(root, team, agent, current, problems),
    agent,
  );
  const shown = conversation.filter((item) => !options.unread || !item.delivered);
  let marked = 0;
  if (options.markRead) {
    const unreadIndexes = new Set(
      shown.flatMap((item) => (item.delivered ? [] : [item.inboxIndex])),
    );
    if (unreadIndexes.size > 0) {
      const delivered = (await mailbox.readUnread(agent)).filter((item) =>
        unreadIndexes.has(item.index),
      );
      await mailbox.markRead(agent, delivered);
      marked = delivered.length;
    }
  }
  if (context.json) {
    printJson(context, {
      team,
      agent,
      ended,
      inbox: ended ? null : mailbox.inboxLocation(agent),
      total: conversation.length,
      unread: conversation.filter((item) => !item.delivered).length,
      messages: shown.map((item) => ({
        index: item.inboxIndex ?? null,
        delivered: item.delivered,
        ...item.message,
        kind: item.words.kind,
        words: item.words.sentence,
      })),
      problems,
      ...(options.markRead ? { marked } : {}),
    });
    return;
  }
  const { style } = context;
  if (ended) {
    printLine(
      context,
      `Session ${escapeTerminalText(team)} has ended (its team folder is gone); what muster recorded of ${escapeTerminalText(agent)}'s inbox:`,
    );
  }
  if (shown.length === 0) {
    const delivered = conversation.length;
    printLine(
      context,
      `${escapeTerminalText(agent)} has no ${options.unread ? 'unread ' : ''}messages in team ${escapeTerminalText(team)}${delivered > 0 ? ` (${delivered} read)` : ''}.`,
    );
  }
  for (const item of shown) {
    const mark = item.delivered ? ' ' : paint(style, 'cyan', symbol(style, 'bullet'));
    const where = item.inboxIndex === undefined ? 'delivered' : `#${item.inboxIndex}`;
    // Free text is shown whole (an inbox is for reading), with its line breaks and tabs but
    // every control, escape and bidi character shown visibly; protocol messages in words.
    const body =
      item.words.kind === 'text'
        ? `${escapeTerminalText(item.message.from)}${item.words.signed ? ' (signed)' : ''}: ${escapeTerminalText(item.message.text, { keepLineBreaks: true, keepTabs: true }).replace(/\n/g, '\n    ')}`
        : escapeTerminalText(item.words.sentence);
    printLine(
      context,
      `${mark} ${paint(style, 'dim', `${where} ${clockTime(item.message.timestamp)}`)} ${body}`,
    );
  }
  for (const problem of problems) {
    printLine(
      context,
      `${paint(style, 'yellow', symbol(style, 'warning'))} ${escapeTerminalText(problem)}`,
    );
  }
  if (options.markRead) {
    printLine(context, `Marked ${marked} message${marked === 1 ? '' : 's'} read.`);
  }
}
