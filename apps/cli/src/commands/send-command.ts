import { createMailbox } from '@muster/mailbox';
import { stripTeamSuffix, type TeamConfig } from '@muster/protocol';
import path from 'node:path';
import { CliError } from '../cli-error.js';
import { printJson, printLine, type CommandContext } from '../context.js';
import { paint, symbol } from '../terminal-style.js';
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

/** `muster send <to> <text>` and `muster send --broadcast <text>`; text `-` reads stdin. */
export async function sendCommand(
  context: CommandContext,
  to: string | undefined,
  text: string | undefined,
  options: { broadcast?: boolean; summary?: string; from: string },
) {
  let recipient = to;
  let body = text;
  if (options.broadcast) {
    if (to !== undefined && text !== undefined) {
      throw new CliError({
        code: 'USAGE',
        message: `With --broadcast give only the text (it goes to every member but the sender), e.g. muster send --broadcast "${text}".`,
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
          : `Say what the message to ${recipient} says: muster send ${recipient} "<text>".`,
    });
  }
  if (body === '-') body = await readStandardInput();
  if (body === undefined || body.trim() === '') {
    throw new CliError({
      code: 'USAGE',
      message: 'The message text is empty. Write something to send.',
    });
  }
  if (options.summary !== undefined && options.summary.trim() === '') {
    throw new CliError({
      code: 'USAGE',
      message: '--summary is empty. Give a 5-10 word preview or leave it out.',
    });
  }
  const team = await resolveTeam(context);
  const config = await readTeamConfig(context.root, team);
  requireMemberName(config, team, options.from, '--from');
  if (!options.broadcast) {
    recipient = stripTeamSuffix(recipient!, team);
    requireRecipient(config, team, recipient);
  }
  const mailbox = createMailbox({ root: context.root, team });
  const input = {
    text: body,
    ...(options.summary === undefined ? {} : { summary: options.summary }),
  };
  const { style } = context;
  if (options.broadcast) {
    const receipt = await mailbox.broadcast(options.from, input);
    if (context.json) {
      printJson(context, {
        team,
        broadcast: true,
        recipients: receipt.recipients,
        message: receipt.message,
      });
      return;
    }
    printLine(
      context,
      receipt.recipients.length === 0
        ? `Nobody to broadcast to: ${options.from} is the only member of team ${team}.`
        : `${paint(style, 'green', symbol(style, 'ok'))} Broadcast from ${options.from} to ${receipt.recipients.join(', ')} (team ${team}).`,
    );
    return;
  }
  const receipt = await mailbox.send(recipient!, { from: options.from, ...input });
  if (context.json) {
    printJson(context, {
      team,
      recipient: receipt.recipient,
      inbox: mailbox.inboxLocation(receipt.recipient),
      message: receipt.message,
    });
    return;
  }
  printLine(
    context,
    `${paint(style, 'green', symbol(style, 'ok'))} Sent from ${options.from} to ${receipt.recipient} (${path.relative(context.root, mailbox.inboxLocation(receipt.recipient))}).`,
  );
}
