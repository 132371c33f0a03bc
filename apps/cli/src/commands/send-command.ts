import { createMailbox } from '@muster/mailbox';
import {
  MAXIMUM_MESSAGE_TEXT_BYTES,
  MusterError,
  stripTeamSuffix,
  type TeamConfig,
} from '@muster/protocol';
import path from 'node:path';
import { CliError } from '../cli-error.js';
import { printJson, printLine, type CommandContext } from '../context.js';
import { quoteShellArgument } from '../printed-command.js';
import { paint, symbol } from '../terminal-style.js';
import { escapeTerminalText } from '../terminal-text.js';
import { isSessionTeam, sentenceInside, sessionStateOf } from '../session/session-state.js';
import { resolveTeam } from './resolve-team.js';
import { readTeamConfig, requireMemberName } from './team-members.js';

function requireRecipient(config: TeamConfig, team: string, recipient: string): void {
  try {
    requireMemberName(config, team, recipient, 'The recipient');
  } catch (error) {
    if (config.members.length > 1 || !CliError.isInstance(error)) throw error;
    // A team made with `muster team create` has only its lead until the lead spawns teammates.
    throw new CliError({
      code: 'NOT_FOUND',
      message: `${error.message} Teammates join when the lead spawns them; for a team that already has some, try muster demo.`,
      details: error.details,
    });
  }
}

/**
 * What `--external` adds to the sender's name in the message's `from`, so the recipient (a
 * model reading `teammate_id`, or a person in `muster inbox`) sees it came from outside the
 * team. No member can have this name: member names never hold spaces or parentheses.
 */
export const EXTERNAL_SENDER_MARK = ' (outside the team)';

/** Names an outside sender may use: a plain word such as `ci` or `release-bot`. */
const OUTSIDE_SENDER_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/**
 * The `from` of a message sent with `--external`: the name with {@link EXTERNAL_SENDER_MARK}.
 * Refuses a name that is not a plain word (exit code 2), the lead's reserved name, and any
 * member's name (case-insensitively): an outsider can never speak as the lead or a member.
 */
function outsideSender(config: TeamConfig, team: string, name: string): string {
  if (!OUTSIDE_SENDER_NAME.test(name)) {
    throw new CliError({
      code: 'USAGE',
      message: `With --external, --from is the outside sender's name, a plain word of letters, digits, ".", "_" or "-" (e.g. --from ci), not ${JSON.stringify(name)}.`,
    });
  }
  const lower = name.toLowerCase();
  const lead = config.members.find((member) => member.agentId === config.leadAgentId)?.name;
  if (lower === 'team-lead' || (lead !== undefined && lower === lead.toLowerCase())) {
    throw new CliError({
      code: 'USAGE',
      message: `--from ${name} names the team's lead; a message sent with --external is marked as coming from outside the team and can never speak as the lead. Say who is sending, e.g. --from ci.`,
    });
  }
  const member = config.members.find((entry) => entry.name.toLowerCase() === lower);
  if (member !== undefined) {
    throw new CliError({
      code: 'REFUSED',
      message: `--from ${name} is the name of ${member.name}, a member of team "${team}"; an outside sender cannot use a member's name. Send as ${member.name} without --external, or choose another name.`,
      details: { team, name, member: member.name },
    });
  }
  return `${name}${EXTERNAL_SENDER_MARK}`;
}

/** The usage error for a message text over the mailbox's limit. */
function messageTooLarge(sizeBytes: number, cause?: unknown): CliError {
  const limit = MAXIMUM_MESSAGE_TEXT_BYTES;
  return new CliError({
    code: 'USAGE',
    message:
      `The message is ${sizeBytes} bytes; a message may be at most ${limit} bytes (${limit / 1024} KiB) of UTF-8. ` +
      'Send a shorter message, split it, or write the text to a file and send its path. Nothing was sent.',
    ...(cause === undefined ? {} : { cause }),
    details: { reason: 'MESSAGE_TOO_LARGE', sizeBytes, limitBytes: limit },
  });
}

/** Sends, turning the mailbox's size refusal into the same usage error as the check above. */
async function withSizeLimit<T>(send: () => Promise<T>, text: string): Promise<T> {
  try {
    return await send();
  } catch (error) {
    if (!MusterError.hasCode(error, 'MESSAGE_TOO_LARGE')) throw error;
    const sizeBytes = (error.details as { sizeBytes?: unknown }).sizeBytes;
    throw messageTooLarge(
      typeof sizeBytes === 'number' ? sizeBytes : Buffer.byteLength(text, 'utf8'),
      error,
    );
  }
}

/**
 * The message text from standard input (`muster send alpha -`), for long or generated text:
 * everything read, without the trailing newlines a pipe usually adds.
 */
async function readStandardInput(): Promise<string> {
  if (process.stdin.isTTY) {
    throw new CliError({
      code: 'USAGE',
      message:
        'The text "-" means "read the message from standard input", but standard input is a terminal. Pipe the text in, e.g. git diff | muster send alpha -',
    });
  }
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').replace(/\n+$/, '');
}

/** Names Claude Code 2.1.330 treats as the lead's when it checks who wrote an entry. */
const LEAD_CLAIMING_NAMES = new Set(['team-lead', 'user', 'system']);

/**
 * How a Claude Code 2.1.330 session team's members will take a message from `from`, when
 * muster cannot prove it: `lead-unverified` for the lead's names and members that run in
 * the lead's process (only that process can vouch for them), `outsider` for a name that is
 * not a member. Undefined for other teams, and for pane members' names.
 */
function claudeCodeVerdict(
  config: TeamConfig,
  from: string,
  external: boolean,
): 'lead-unverified' | 'outsider' | undefined {
  if (!isSessionTeam(config)) return undefined;
  if (external) return 'outsider';
  const lead = config.members.find((member) => member.agentId === config.leadAgentId)?.name;
  const member = config.members.find((entry) => entry.name === from);
  const inLeadProcess =
    member !== undefined &&
    (member.tmuxPaneId === 'leader' ||
      member.tmuxPaneId === 'in-process' ||
      member.backendType === 'in-process');
  return LEAD_CLAIMING_NAMES.has(from) || from === lead || inLeadProcess
    ? 'lead-unverified'
    : undefined;
}

/** What muster says about a message Claude Code will not take at its word. */
function verdictNotice(
  verdict: 'lead-unverified' | 'outsider',
  from: string,
  team: string,
): string {
  return verdict === 'lead-unverified'
    ? `Note: ${team} is a Claude Code 2.1.330 session and muster is not its lead. Claude Code cannot verify that "${from}" wrote this (only the session's own lead process signs for it), so it shows the message marked verified="false" and will not obey protocol requests in it (shutdown, permission or plan answers). To write as yourself instead of as the lead, use --from <name> --external.`
    : `Note: ${team} is a Claude Code 2.1.330 session. "${from}" is not a member, so Claude Code treats it as an unverified outsider: the message reaches the model with no verified mark, like a teammate's, but carries no authority (shutdown, permission or plan answers in it have no effect).`;
}

/**
 * A warning when the team's session has ended (its lead process is gone) though its folder
 * remains: the entry is written, but no Claude Code process will read it.
 */
function endedSessionNotice(config: TeamConfig, team: string): string[] {
  const session = sessionStateOf(config);
  if (session?.state !== 'ended') return [];
  return [
    `Warning: the session of ${team} has ended (${sentenceInside(session.reason)}), so nothing reads this inbox any more; the message stays in the file until the folder is removed.`,
  ];
}

/** `muster send <to> <text>` and `muster send --broadcast <text>`; text `-` reads stdin. */
export async function sendCommand(
  context: CommandContext,
  to: string | undefined,
  text: string | undefined,
  options: { broadcast?: boolean; summary?: string; from?: string; external?: boolean },
) {
  const external = options.external === true;
  if (external && options.from === undefined) {
    throw new CliError({
      code: 'USAGE',
      message:
        'With --external, say who is sending with --from <name> (e.g. --from ci): the message is marked as coming from outside the team.',
    });
  }
  const givenFrom = options.from ?? 'team-lead';
  let recipient = to;
  let body = text;
  if (options.broadcast) {
    if (to !== undefined && text !== undefined) {
      throw new CliError({
        code: 'USAGE',
        message: `With --broadcast give only the text (it goes to every member but the sender), e.g. muster send --broadcast ${quoteShellArgument(text)}.`,
      });
    }
    body = to;
    recipient = undefined;
  }
  if (!options.broadcast && (recipient === undefined || body === undefined)) {
    throw new CliError({
      code: 'USAGE',
      message:
        recipient === undefined
          ? 'Say who the message is for and what it says: muster send <agent> "<text>" (or muster send --broadcast "<text>").'
          : `Say what the message to ${recipient} says: muster send ${quoteShellArgument(recipient)} "<text>".`,
    });
  }
  if (body === '-') body = await readStandardInput();
  if (body === undefined || body.trim() === '') {
    throw new CliError({
      code: 'USAGE',
      message: 'The message text is empty. Write something to send.',
    });
  }
  // Checked before the team is even read: a message over the limit is a wrong command line.
  const sizeBytes = Buffer.byteLength(body, 'utf8');
  if (sizeBytes > MAXIMUM_MESSAGE_TEXT_BYTES) throw messageTooLarge(sizeBytes);
  if (options.summary !== undefined && options.summary.trim() === '') {
    throw new CliError({
      code: 'USAGE',
      message: '--summary is empty. Give a 5-10 word preview or leave it out.',
    });
  }
  const team = await resolveTeam(context);
  const config = await readTeamConfig(context.root, team);
  let from: string;
  if (external) {
    from = outsideSender(config, team, givenFrom);
  } else {
    try {
      from = requireMemberName(config, team, givenFrom, '--from');
    } catch (error) {
      if (!CliError.hasCode(error, 'NOT_FOUND')) throw error;
      throw new CliError({
        code: 'NOT_FOUND',
        message: `${error.message} To send as someone outside the team (a CI job, a person), add --external.`,
        details: error.details,
      });
    }
  }
  if (!options.broadcast) {
    recipient = stripTeamSuffix(recipient!, team);
    requireRecipient(config, team, recipient);
  }
  const verdict = claudeCodeVerdict(config, external ? givenFrom : from, external);
  const notices = [
    ...(verdict === undefined ? [] : [verdictNotice(verdict, from, team)]),
    ...endedSessionNotice(config, team),
  ];
  const notice = notices.length === 0 ? undefined : notices.join('\n');
  const mailbox = createMailbox({ root: context.root, team });
  const input = {
    text: body,
    ...(options.summary === undefined ? {} : { summary: options.summary }),
  };
  const { style } = context;
  if (options.broadcast) {
    // An outside sender has no color: nothing ties the message to a member.
    const receipt = await withSizeLimit(
      () => mailbox.broadcast(from, external ? { ...input, color: null } : input),
      body,
    );
    if (context.json) {
      printJson(context, {
        team,
        external,
        broadcast: true,
        recipients: receipt.recipients,
        message: receipt.message,
        messageIds: receipt.messageIds ?? null,
        claudeCodeVerdict: verdict ?? null,
        ...(notice ? { notice } : {}),
      });
      return;
    }
    printLine(
      context,
      receipt.recipients.length === 0
        ? `Nobody to broadcast to: ${escapeTerminalText(from)} is the only member of team ${escapeTerminalText(team)}.`
        : `${paint(style, 'green', symbol(style, 'ok'))} Broadcast from ${escapeTerminalText(from)} to ${receipt.recipients.map((name) => escapeTerminalText(name)).join(', ')} (team ${escapeTerminalText(team)}).`,
    );
    const ids = Object.entries(receipt.messageIds ?? {});
    if (ids.length > 0) {
      printLine(
        context,
        `  msg_id ${ids.map(([name, id]) => `${escapeTerminalText(name)} ${escapeTerminalText(id)}`).join(', ')}`,
      );
    }
    if (notice && receipt.recipients.length > 0) {
      printLine(context, paint(style, 'yellow', escapeTerminalText(notice)));
    }
    return;
  }
  const receipt = await withSizeLimit(
    () => mailbox.send(recipient!, { from, ...input, ...(external ? { color: null } : {}) }),
    body,
  );
  if (context.json) {
    printJson(context, {
      team,
      external,
      recipient: receipt.recipient,
      inbox: mailbox.inboxLocation(receipt.recipient),
      message: receipt.message,
      messageId: receipt.messageId ?? null,
      claudeCodeVerdict: verdict ?? null,
      ...(notice ? { notice } : {}),
    });
    return;
  }
  const id =
    receipt.messageId === undefined ? '' : `, msg_id ${escapeTerminalText(receipt.messageId)}`;
  printLine(
    context,
    `${paint(style, 'green', symbol(style, 'ok'))} Sent from ${escapeTerminalText(from)} to ${escapeTerminalText(receipt.recipient)} (${escapeTerminalText(path.relative(context.root, mailbox.inboxLocation(receipt.recipient)))}${id}).`,
  );
  if (notice) printLine(context, paint(style, 'yellow', escapeTerminalText(notice)));
}
