import { existsSync } from 'node:fs';
import { createMailbox } from '@muster/mailbox';
import { printJson, printLine, type CommandContext } from '../context.js';
import { paint, symbol } from '../terminal-style.js';
import { escapeTerminalText } from '../terminal-text.js';
import { describeMessage } from '../watch/message-words.js';
import { clockTime } from '../watch/clock-time.js';
import { resolveTeam } from './resolve-team.js';
import { readTeamConfig, requireMemberName } from './team-members.js';

/** `muster inbox <agent> [--unread] [--mark-read]`. */
export async function inboxCommand(
  context: CommandContext,
  agent: string,
  options: { unread?: boolean; markRead?: boolean },
) {
  const team = await resolveTeam(context);
  const config = await readTeamConfig(context.root, team);
  const mailbox = createMailbox({ root: context.root, team });
  const location = mailbox.inboxLocation(agent);
  // An inbox can outlive its member (muster doctor reports it); reading it is still allowed.
  if (!existsSync(location)) requireMemberName(config, team, agent, 'Agent');
  const all = await mailbox.readAll(agent);
  const shown = all
    .map((message, index) => ({ message, index }))
    .filter(({ message }) => !options.unread || !message.read);
  let marked = 0;
  if (options.markRead) {
    const unreadShown = shown.filter(({ message }) => !message.read);
    if (unreadShown.length > 0) {
      const delivered = (await mailbox.readUnread(agent)).filter((item) =>
        unreadShown.some(({ index }) => index === item.index),
      );
      await mailbox.markRead(agent, delivered);
      marked = delivered.length;
    }
  }
  const rows = shown.map(({ message, index }) => {
    const words = describeMessage(message, { recipient: agent });
    return { index, ...message, kind: words.kind, words: words.sentence };
  });
  if (context.json) {
    printJson(context, {
      team,
      agent,
      inbox: location,
      total: all.length,
      unread: all.filter((message) => !message.read).length,
      messages: rows,
      ...(options.markRead ? { marked } : {}),
    });
    return;
  }
  const { style } = context;
  if (rows.length === 0) {
    printLine(
      context,
      `${escapeTerminalText(agent)} has no ${options.unread ? 'unread ' : ''}messages in team ${escapeTerminalText(team)}${all.length > 0 ? ` (${all.length} read)` : ''}.`,
    );
  }
  for (const row of rows) {
    const mark = row.read ? ' ' : paint(style, 'cyan', symbol(style, 'bullet'));
    // Free text is shown whole (an inbox is for reading), with its line breaks and tabs but
    // every control, escape and bidi character shown visibly; protocol messages in words.
    const body =
      row.kind === 'text'
        ? `${escapeTerminalText(row.from)}: ${escapeTerminalText(row.text, { keepLineBreaks: true, keepTabs: true }).replace(/\n/g, '\n    ')}`
        : escapeTerminalText(row.words);
    printLine(
      context,
      `${mark} ${paint(style, 'dim', `#${row.index} ${clockTime(row.timestamp)}`)} ${body}`,
    );
  }
  if (options.markRead) {
    printLine(context, `Marked ${marked} message${marked === 1 ? '' : 's'} read.`);
  }
}
