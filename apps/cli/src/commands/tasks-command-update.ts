import { assertTaskId } from '@muster/protocol';
import { removeTaskDependencies, type TaskStore } from '@muster/tasks';
import { CliError } from '../cli-error.js';
import { printJson, printLine, type CommandContext } from '../context.js';
import { formatMusterCommand } from '../printed-command.js';
import { paint, symbol } from '../terminal-style.js';
import { escapeTerminalText } from '../terminal-text.js';
import { notifyNewOwner, openTeam, taskIds } from './tasks-command.js';
import { readTeamConfig, requireMemberName } from './team-members.js';

type TaskChangeSet = Parameters<TaskStore['update']>[1];

/** What one `tasks update` (or `done`, `block`, `unblock`) asks for. */
interface UpdateRequest {
  changes: TaskChangeSet;
  /** Tasks this one should no longer wait for. */
  removeBlockedBy?: string[];
  /** Tasks that should no longer wait for this one. */
  removeBlocks?: string[];
  /** Who makes the change. */
  from: string;
  /** Start or complete the task even though tasks it waits for are unfinished. */
  force?: boolean;
}

/**
 * Refuses to start or complete a task that waits for unfinished tasks, as `tasks claim` does,
 * unless forced; blockers the same command removes do not count.
 */
async function requireUnblocked(
  context: CommandContext,
  team: string,
  store: TaskStore,
  taskId: string,
  request: UpdateRequest,
): Promise<void> {
  const status = request.changes.status;
  if (request.force === true || (status !== 'completed' && status !== 'in_progress')) return;
  const listed = (await store.list({ includeInternal: true })).tasks.find(
    (item) => item.task.id === taskId,
  );
  const removed = new Set(request.removeBlockedBy ?? []);
  const open = (listed?.openBlockers ?? []).filter((blocker) => !removed.has(blocker));
  if (open.length === 0) return;
  const ids = open.map((blocker) => `#${blocker}`).join(', ');
  const verb = status === 'completed' ? 'complete' : 'start';
  throw new CliError({
    code: 'REFUSED',
    message:
      `Task #${taskId} in team ${escapeTerminalText(team)} waits for ${ids}, not completed yet, so it cannot ${verb} (tasks claim refuses it too). ` +
      `Finish ${open.length === 1 ? 'that task' : 'those tasks'} first, remove the dependency (${formatMusterCommand(context, ['tasks', 'unblock', taskId, '--by', ...open], { team })}), ` +
      `or pass --force to ${verb} it anyway. Nothing was changed.`,
    details: { reason: 'blocked', taskId, team, openBlockers: open },
  });
}

async function applyUpdate(context: CommandContext, id: string, request: UpdateRequest) {
  const { changes, from } = request;
  const taskId = assertTaskId(id.replace(/^#/, ''));
  const { team, store } = await openTeam(context);
  const config = await readTeamConfig(context.root, team);
  requireMemberName(config, team, from, '--from');
  if (typeof changes.owner === 'string' && changes.owner !== '') {
    requireMemberName(config, team, changes.owner, '--owner');
  }
  for (const other of [...(changes.addBlockedBy ?? []), ...(changes.addBlocks ?? [])]) {
    await store.get(other);
  }
  // Checked before anything is written, so a refused update leaves the task list unchanged.
  await store.get(taskId);
  await requireUnblocked(context, team, store, taskId, request);
  const removals = [
    ...(request.removeBlockedBy ?? []).map((blockerId) => ({ blockerId, blockedId: taskId })),
    ...(request.removeBlocks ?? []).map((blockedId) => ({ blockerId: taskId, blockedId })),
  ];
  const removed =
    removals.length === 0
      ? []
      : await removeTaskDependencies({ root: context.root, team }, removals);
  const notRecorded = removed.filter((entry) => !entry.changed);
  const hasChanges = Object.keys(changes).length > 0;
  const result = hasChanges ? await store.update(taskId, changes, { agent: from }) : undefined;
  if (result?.ownerChange?.to && result.task) {
    await notifyNewOwner(context, team, result.task, result.ownerChange.to, from);
  }
  const updatedFields = [...(result?.updatedFields ?? [])];
  for (const [field, changed] of [
    ['blocks', removed.some((entry) => entry.changed && entry.blockerId === taskId)],
    ['blockedBy', removed.some((entry) => entry.changed && entry.blockedId === taskId)],
  ] as const) {
    if (changed && !updatedFields.includes(field)) updatedFields.push(field);
  }
  const task = result?.task ?? (result?.deleted ? undefined : await store.find(taskId));
  if (context.json) {
    printJson(context, {
      team,
      taskId,
      task: task ?? null,
      updatedFields,
      deleted: result?.deleted ?? false,
      removedDependencies: removed
        .filter((entry) => entry.changed)
        .map(({ blockerId, blockedId }) => ({ blockerId, blockedId })),
      dependenciesNotFound: notRecorded.map(({ blockerId, blockedId }) => ({
        blockerId,
        blockedId,
      })),
    });
    return;
  }
  const { style } = context;
  const ok = paint(style, 'green', symbol(style, 'ok'));
  for (const entry of notRecorded) {
    printLine(
      context,
      `${paint(style, 'yellow', symbol(style, 'warning'))} Task #${entry.blockedId} did not wait for #${entry.blockerId}; nothing to remove there.`,
    );
  }
  if (result?.deleted) printLine(context, `${ok} Deleted task #${taskId}.`);
  else if (updatedFields.length === 0)
    printLine(context, `Task #${taskId} already looked like that; nothing changed.`);
  else printLine(context, `${ok} Updated task #${taskId}: ${updatedFields.join(', ')}.`);
}

/** `muster tasks update <id> …`. */
export async function tasksUpdate(
  context: CommandContext,
  id: string,
  options: {
    status?: 'pending' | 'in_progress' | 'completed' | 'deleted';
    owner?: string;
    subject?: string;
    description?: string;
    activeForm?: string;
    addBlockedBy?: string[];
    addBlocks?: string[];
    removeBlockedBy?: string[];
    removeBlocks?: string[];
    from: string;
    force?: boolean;
  },
) {
  const changes = {
    ...(options.status === undefined ? {} : { status: options.status }),
    ...(options.owner === undefined ? {} : { owner: options.owner }),
    ...(options.subject === undefined ? {} : { subject: options.subject }),
    ...(options.description === undefined ? {} : { description: options.description }),
    ...(options.activeForm === undefined ? {} : { activeForm: options.activeForm }),
    ...(options.addBlockedBy === undefined ? {} : { addBlockedBy: taskIds(options.addBlockedBy) }),
    ...(options.addBlocks === undefined ? {} : { addBlocks: taskIds(options.addBlocks) }),
  };
  const removeBlockedBy = taskIds(options.removeBlockedBy);
  const removeBlocks = taskIds(options.removeBlocks);
  if (Object.keys(changes).length === 0 && removeBlockedBy.length + removeBlocks.length === 0) {
    throw new CliError({
      code: 'USAGE',
      message: `Say what to change on task #${id}, e.g. --status in_progress, --owner alpha, --subject "..." or --remove-blocked-by 1 (see muster tasks update --help).`,
    });
  }
  await applyUpdate(context, id, {
    changes,
    removeBlockedBy,
    removeBlocks,
    from: options.from,
    ...(options.force === undefined ? {} : { force: options.force }),
  });
}

/** `muster tasks done <id>`. */
export async function tasksDone(
  context: CommandContext,
  id: string,
  options: { from: string; force?: boolean },
) {
  await applyUpdate(context, id, {
    changes: { status: 'completed' },
    from: options.from,
    ...(options.force === undefined ? {} : { force: options.force }),
  });
}

/** `muster tasks block <id> --by <ids…>`. */
export async function tasksBlock(
  context: CommandContext,
  id: string,
  options: { by: string[]; from: string },
) {
  await applyUpdate(context, id, {
    changes: { addBlockedBy: taskIds(options.by) },
    from: options.from,
  });
}

/** `muster tasks unblock <id> --by <ids…>`: the task no longer waits for those tasks. */
export async function tasksUnblock(
  context: CommandContext,
  id: string,
  options: { by: string[]; from: string },
) {
  await applyUpdate(context, id, {
    changes: {},
    removeBlockedBy: taskIds(options.by),
    from: options.from,
  });
}
