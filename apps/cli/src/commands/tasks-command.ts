import { createMailbox } from '@muster/mailbox';
import { assertTaskId, type Task } from '@muster/protocol';
import { buildTaskAssignment, createTaskStore, type ListedTask } from '@muster/tasks';
import { CliError } from '../cli-error.js';
import { printJson, printLine, type CommandContext } from '../context.js';
import { formatMusterCommand } from '../printed-command.js';
import { paint, symbol, type TerminalStyle } from '../terminal-style.js';
import { escapeTerminalText } from '../terminal-text.js';
import { resolveTeam, resolveTeamOrEndedSession } from './resolve-team.js';
import { readTeamConfig, requireMemberName } from './team-members.js';

/** The team a task command acts on, and its task store. */
export async function openTeam(context: CommandContext) {
  const team = await resolveTeam(context);
  return { team, store: createTaskStore({ root: context.root, team }) };
}

/** Task ids from a variadic option, without a leading `#` and checked. */
export function taskIds(ids: readonly string[] | undefined): string[] {
  return (ids ?? []).map((id) => assertTaskId(id.replace(/^#/, '')));
}

function statusMark(
  listed: Pick<ListedTask, 'task' | 'openBlockers'>,
  style: TerminalStyle,
): string {
  const { task } = listed;
  if (task.status === 'completed') return paint(style, 'green', symbol(style, 'completed'));
  if (task.status === 'in_progress') return paint(style, 'cyan', symbol(style, 'inProgress'));
  return listed.openBlockers.length > 0
    ? paint(style, 'yellow', symbol(style, 'blocked'))
    : symbol(style, 'pending');
}

/** One task as a line: `◐ #1 Subject [in_progress] (alpha) blocked by #2`. */
function taskLine(listed: Pick<ListedTask, 'task' | 'openBlockers'>, style: TerminalStyle): string {
  const { task } = listed;
  const parts = [
    statusMark(listed, style),
    paint(style, 'bold', `#${task.id}`),
    escapeTerminalText(task.subject),
    paint(style, 'dim', `[${task.status}]`),
  ];
  if (task.owner) parts.push(`(${escapeTerminalText(task.owner)})`);
  if (listed.openBlockers.length > 0) {
    parts.push(
      paint(style, 'yellow', `blocked by ${listed.openBlockers.map((id) => `#${id}`).join(', ')}`),
    );
  }
  return parts.join(' ');
}

/** Tells a task's new owner, as Claude Code does whenever `owner` changes. */
export async function notifyNewOwner(
  context: CommandContext,
  team: string,
  task: Task,
  owner: string,
  assignedBy: string,
) {
  const mailbox = createMailbox({ root: context.root, team });
  await mailbox.sendProtocolMessage(owner, assignedBy, buildTaskAssignment(task, assignedBy));
}

/**
 * The team a reading task command shows: a running team, or a Claude Code session that
 * ended and kept its task list (said on stderr, so the output stays the list).
 */
async function openTeamForReading(context: CommandContext) {
  const { team, ended, note } = await resolveTeamOrEndedSession(context);
  if (note !== undefined) context.streams.stderr.write(`${escapeTerminalText(note)}\n`);
  return { team, ended, store: createTaskStore({ root: context.root, team }) };
}

/** `muster tasks list [--all]`. */
export async function tasksList(context: CommandContext, options: { all?: boolean }) {
  const { team, ended, store } = await openTeamForReading(context);
  const listing = await store.list({ includeInternal: options.all === true });
  if (context.json) {
    printJson(context, { team, ended, tasks: listing.tasks, problems: listing.problems });
    return;
  }
  if (ended) {
    printLine(
      context,
      `Session ${escapeTerminalText(team)} has ended; Claude Code kept its task list:`,
    );
  }
  if (listing.tasks.length === 0) {
    printLine(
      context,
      `No tasks in team ${escapeTerminalText(team)} yet. Add one: ${formatMusterCommand(context, ['tasks', 'add', '<subject>'], { team })}`,
    );
  }
  for (const listed of listing.tasks) printLine(context, taskLine(listed, context.style));
  for (const problem of listing.problems) {
    printLine(
      context,
      `${paint(context.style, 'yellow', symbol(context.style, 'warning'))} ${escapeTerminalText(problem.message)}`,
    );
  }
}

/** `muster tasks add <subject>`. */
export async function tasksAdd(
  context: CommandContext,
  subject: string,
  options: { description: string; activeForm?: string; blockedBy?: string[] },
) {
  if (subject.trim() === '') {
    throw new CliError({
      code: 'USAGE',
      message:
        'The task subject is empty. Give a short title, e.g. muster tasks add "Write the parser".',
    });
  }
  const blockers = taskIds(options.blockedBy);
  const { team, store } = await openTeam(context);
  // Checked before anything is written, so a wrong id leaves the task list unchanged.
  for (const blocker of blockers) await store.get(blocker);
  let task = await store.create({
    subject,
    description: options.description,
    ...(options.activeForm === undefined ? {} : { activeForm: options.activeForm }),
  });
  if (blockers.length > 0) {
    const result = await store.update(task.id, { addBlockedBy: blockers });
    task = result.task ?? task;
  }
  if (context.json) {
    printJson(context, { team, task });
    return;
  }
  printLine(
    context,
    `${paint(context.style, 'green', symbol(context.style, 'ok'))} Created task #${task.id}: ${escapeTerminalText(task.subject)}${blockers.length ? ` (waits for ${blockers.map((id) => `#${id}`).join(', ')})` : ''}`,
  );
}

/** `muster tasks show <id>`. */
export async function tasksShow(context: CommandContext, id: string) {
  const taskId = assertTaskId(id.replace(/^#/, ''));
  const { team, store } = await openTeamForReading(context);
  const task = await store.get(taskId);
  const listed = (await store.list({ includeInternal: true })).tasks.find(
    (item) => item.task.id === taskId,
  );
  const openBlockers = listed?.openBlockers ?? [];
  if (context.json) {
    printJson(context, { team, task, openBlockers, available: listed?.available ?? false });
    return;
  }
  const { style } = context;
  printLine(context, taskLine({ task, openBlockers }, style));
  const field = (label: string, value: string | undefined) =>
    printLine(
      context,
      `  ${paint(style, 'dim', label.padEnd(12))}${value ?? symbol(style, 'dash')}`,
    );
  field('status', task.status);
  field('owner', task.owner === undefined ? undefined : escapeTerminalText(task.owner));
  field(
    'active form',
    task.activeForm === undefined ? undefined : escapeTerminalText(task.activeForm),
  );
  field('blocked by', task.blockedBy.map((blocker) => `#${blocker}`).join(', ') || undefined);
  field('blocks', task.blocks.map((blocked) => `#${blocked}`).join(', ') || undefined);
  if (task.description) {
    printLine(context, `\n${escapeTerminalText(task.description, { keepLineBreaks: true })}`);
  }
}

/** `muster tasks claim <id> --agent <name>`. */
export async function tasksClaim(
  context: CommandContext,
  id: string,
  options: { agent?: string; from?: string },
) {
  if (options.agent !== undefined && options.from !== undefined && options.agent !== options.from) {
    throw new CliError({
      code: 'USAGE',
      message: `--agent "${options.agent}" and --from "${options.from}" name different agents. Give one of them: who takes the task.`,
    });
  }
  const agent = options.agent ?? options.from;
  if (agent === undefined) {
    throw new CliError({
      code: 'USAGE',
      message: 'Say who takes the task: muster tasks claim <id> --agent <name> (or --from <name>).',
    });
  }
  const taskId = assertTaskId(id.replace(/^#/, ''));
  const { team, store } = await openTeam(context);
  requireMemberName(await readTeamConfig(context.root, team), team, agent, '--agent');
  const result = await store.claim(taskId, agent);
  if (!result.success) {
    const reasons: Record<string, string> = {
      task_not_found: `there is no task #${taskId}`,
      already_claimed: `${result.task?.owner ?? 'another agent'} already owns it`,
      already_resolved: 'it is already completed',
      blocked: `it waits for ${(result.blockedByTasks ?? []).map((blocker) => `#${blocker}`).join(', ')} to be completed first`,
      agent_busy: `${agent} is busy with ${(result.busyWithTasks ?? []).map((busy) => `#${busy}`).join(', ')}`,
    };
    throw new CliError({
      code: 'REFUSED',
      message: `${agent} cannot claim task #${taskId} in team ${team}: ${reasons[result.reason] ?? result.reason}. Nothing was changed.`,
      details: { reason: result.reason, taskId, team },
    });
  }
  if (result.ownerChanged) await notifyNewOwner(context, team, result.task, agent, agent);
  if (context.json) {
    printJson(context, { team, task: result.task, ownerChanged: result.ownerChanged });
    return;
  }
  printLine(
    context,
    `${paint(context.style, 'green', symbol(context.style, 'ok'))} ${escapeTerminalText(agent)} claimed task #${taskId}: ${escapeTerminalText(result.task.subject)} (now in progress).`,
  );
}
