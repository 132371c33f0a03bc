import { randomBytes } from 'node:crypto';
import { lstat, readdir, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline/promises';
import { acquireFileLock, readFileSnapshot } from '@muster/file-lock';
import {
  createRootLayout,
  parseMessageContent,
  safeParseJsonFile,
  TeamConfigSchema,
} from '@muster/protocol';
import { createTaskStore } from '@muster/tasks';
import { assertTeamName, deleteTeam, TeamsError } from '@muster/teams';
import { CliError } from '../cli-error.js';
import { printJson, printLine, type CommandContext } from '../context.js';
import { formatMusterCommand } from '../printed-command.js';
import { paint, symbol } from '../terminal-style.js';
import { escapeTerminalText } from '../terminal-text.js';

/** What deleting a team would lose for good. */
interface UnfinishedWork {
  /** Tasks not completed (internal tracking tasks left out), as `#id subject`. */
  tasks: string[];
  /** Unread messages per inbox (idle notifications left out: they carry no work). */
  unread: Array<{ inbox: string; count: number }>;
  /** Task files and inboxes that could not be read, so they could not be checked. */
  unreadable: string[];
}

/** Reads the team's config a few times before judging it: Claude Code rewrites it in place. */
async function configState(
  file: string,
): Promise<{ state: 'valid' } | { state: 'missing' | 'corrupt'; reason: string }> {
  let reason = '';
  for (let attempt = 0; attempt < 3; attempt += 1) {
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 100));
    const snapshot = await readFileSnapshot(file);
    if (snapshot === undefined) return { state: 'missing', reason: `there is no ${file}` };
    const parsed = safeParseJsonFile(snapshot.text, TeamConfigSchema, file);
    if (parsed.success) return { state: 'valid' };
    reason = parsed.error.message;
  }
  return { state: 'corrupt', reason };
}

async function findUnfinishedWork(context: CommandContext, team: string): Promise<UnfinishedWork> {
  const work: UnfinishedWork = { tasks: [], unread: [], unreadable: [] };
  const listing = await createTaskStore({ root: context.root, team }).list();
  for (const { task } of listing.tasks) {
    if (task.status !== 'completed') work.tasks.push(`#${task.id} ${task.subject}`);
  }
  for (const problem of listing.problems) work.unreadable.push(problem.file);
  const inboxes = createRootLayout(context.root).inboxesDirectory(team);
  let files: string[] = [];
  try {
    files = (await readdir(inboxes)).filter((file) => /^[^.].*\.json$/.test(file)).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') work.unreadable.push(inboxes);
  }
  for (const file of files) {
    let entries: unknown;
    try {
      entries = JSON.parse(await readFile(path.join(inboxes, file), 'utf8'));
    } catch {
      entries = undefined;
    }
    if (!Array.isArray(entries)) {
      work.unreadable.push(path.join(inboxes, file));
      continue;
    }
    const count = entries.filter((entry: { read?: unknown; text?: unknown }) => {
      if (entry?.read !== false) return false;
      const content = parseMessageContent(typeof entry.text === 'string' ? entry.text : '');
      return !(content.kind === 'protocol' && content.message.type === 'idle_notification');
    }).length;
    if (count > 0) work.unread.push({ inbox: file.replace(/\.json$/, ''), count });
  }
  return work;
}

function describeWork(work: UnfinishedWork): string {
  const parts: string[] = [];
  if (work.tasks.length > 0) {
    const shown = work.tasks.slice(0, 5).map((task) => escapeTerminalText(task));
    const more = work.tasks.length > 5 ? `, and ${work.tasks.length - 5} more` : '';
    parts.push(
      `${work.tasks.length} unfinished task${work.tasks.length === 1 ? '' : 's'} (${shown.join('; ')}${more})`,
    );
  }
  if (work.unread.length > 0) {
    const total = work.unread.reduce((sum, entry) => sum + entry.count, 0);
    const perInbox = work.unread.map(
      (entry) => `${escapeTerminalText(entry.inbox)}: ${entry.count}`,
    );
    parts.push(`${total} unread message${total === 1 ? '' : 's'} (${perInbox.join(', ')})`);
  }
  if (work.unreadable.length > 0) {
    parts.push(`${work.unreadable.length} file(s) that cannot be read to check them`);
  }
  return parts.join(' and ');
}

/** Asks on the terminal; true only for an explicit yes. */
async function confirmOnTerminal(question: string): Promise<boolean> {
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await prompt.question(question);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    prompt.close();
  }
}

function canAsk(context: CommandContext): boolean {
  return !context.json && process.stdin.isTTY === true && context.streams.stderr.isTTY === true;
}

/**
 * Deletes the folders of a team whose config is missing or does not parse (with --force):
 * under the config's lock, both folders are renamed aside, then removed. Links are never
 * followed: a `teams/{team}` that is not a real folder is refused.
 */
async function deleteUnreadableTeam(context: CommandContext, team: string): Promise<void> {
  const layout = createRootLayout(context.root);
  const teamDirectory = layout.teamDirectory(team);
  if (!(await lstat(teamDirectory)).isDirectory()) {
    throw new CliError({
      code: 'REFUSED',
      message: `${teamDirectory} is not a folder (a link or a file); muster does not delete through it. Remove it by hand after checking where it points.`,
      details: { team, path: teamDirectory },
    });
  }
  const lock = await acquireFileLock(layout.teamConfigPath(team));
  const suffix = `.deleted-${process.pid}-${randomBytes(4).toString('hex')}`;
  const tasksAside = path.join(layout.tasksRootDirectory(), `.${team}${suffix}`);
  const teamAside = path.join(layout.teamsDirectory(), `.${team}${suffix}`);
  let renamed = false;
  try {
    try {
      await rename(layout.tasksDirectory(team), tasksAside);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    await rename(teamDirectory, teamAside);
    renamed = true;
  } finally {
    // The lock folder moved away with the team folder: losing it then is expected.
    await lock.release().catch((error: unknown) => {
      if (!renamed) throw error;
    });
  }
  await rm(tasksAside, { recursive: true, force: true, maxRetries: 3 });
  await rm(teamAside, { recursive: true, force: true, maxRetries: 3 });
}

/**
 * `muster team delete <name> [--force]`. Refuses while anything would be lost — unfinished
 * tasks, unread messages, files that cannot be checked — unless `--force` is given or the
 * user says yes on a terminal. A team whose config is missing or corrupt is never
 * quarantined here: it is refused with what to do, and deleted with `--force`.
 */
export async function teamDelete(
  context: CommandContext,
  name: string,
  options: { force?: boolean },
) {
  assertTeamName(name);
  const force = options.force === true;
  const layout = createRootLayout(context.root);
  const teamDirectory = layout.teamDirectory(name);
  const folderExists = await lstat(teamDirectory).then(
    () => true,
    () => false,
  );
  const config = folderExists
    ? await configState(layout.teamConfigPath(name))
    : { state: 'valid' as const };
  const forceCommand = formatMusterCommand(context, ['team', 'delete', name, '--force']);
  if (config.state !== 'valid') {
    if (!force) {
      throw new TeamsError({
        code: 'CORRUPT_FILE',
        message:
          `Team "${name}" cannot be read: ${config.reason} Its members, tasks and messages cannot be checked, so it is not deleted. ` +
          `Run "muster doctor" to see what is wrong, or delete its folders anyway with: ${forceCommand}`,
        details: { team: name, root: context.root, config: config.state },
      });
    }
    await deleteUnreadableTeam(context, name);
    if (context.json) {
      printJson(context, {
        team: name,
        deleted: true,
        removedMembers: [],
        configWas: config.state,
      });
      return;
    }
    printLine(
      context,
      `${paint(context.style, 'green', symbol(context.style, 'ok'))} Deleted team ${paint(context.style, 'bold', escapeTerminalText(name))} (teams/${escapeTerminalText(name)} and tasks/${escapeTerminalText(name)}), whose config was ${config.state}.`,
    );
    return;
  }
  if (folderExists && !force) {
    const work = await findUnfinishedWork(context, name);
    if (work.tasks.length + work.unread.length + work.unreadable.length > 0) {
      const lost = describeWork(work);
      const confirmed =
        canAsk(context) &&
        (await confirmOnTerminal(
          `Team "${escapeTerminalText(name)}" has ${lost}. Delete it with all of that? [y/N] `,
        ));
      if (!confirmed) {
        throw new CliError({
          code: 'REFUSED',
          message: `Team "${name}" was not deleted: it has ${lost}, which would be lost for good. Finish or read them first, or delete anyway with: ${forceCommand}`,
          details: {
            team: name,
            unfinishedTasks: work.tasks,
            unreadMessages: work.unread,
            unreadableFiles: work.unreadable,
          },
        });
      }
    }
  }
  const result = await deleteTeam(context.root, name, { force });
  if (context.json) {
    printJson(context, {
      team: result.teamName,
      deleted: true,
      removedMembers: result.removedMembers.map((member) => member.name),
    });
    return;
  }
  const shown = escapeTerminalText(result.teamName);
  printLine(
    context,
    `${paint(context.style, 'green', symbol(context.style, 'ok'))} Deleted team ${paint(context.style, 'bold', shown)} (teams/${shown} and tasks/${shown}).`,
  );
  if (result.removedMembers.length > 0) {
    printLine(
      context,
      `  Removed first, because their processes were gone: ${result.removedMembers.map((member) => escapeTerminalText(member.name)).join(', ')}.`,
    );
  }
}
