// The team's task list as the lead's runtime sees it: read through @muster/tasks (its read
// cache re-parses only files that changed), re-read when an event hints that tasks moved (a
// task tool ran, a message or state change arrived) and on a slow poll for what process
// teammates change unseen; each change is one `tasks` event.
import type { Task } from '@muster/protocol';
import { createTaskStore, type ListedTask, type TaskProblem, type TaskStore } from '@muster/tasks';
import type { TeamEvent } from './team-event.js';

/** The team's task list at one moment (`TeamRuntime.tasks()`, and the `tasks` event). */
export interface TeamTaskList {
  /** The task list's name (the team's name while the lead is in a team). */
  teamName: string;
  /** Tasks in id order, internal tracking tasks left out, with what muster computed about them. */
  tasks: ListedTask[];
  /** Task files that could not be used (reported, never dropped silently). */
  problems: TaskProblem[];
}

/** A teammate's current task (`TeamMemberStatus.currentTask`). */
export interface TeamMemberTask {
  id: string;
  subject: string;
  /** The present-continuous form a spinner shows ("Running the tests"), when the task has one. */
  activeForm?: string;
}

/** Options of {@link createTaskWatch}. */
export interface TaskWatchOptions {
  root: string;
  /** The task list to read now (the lead's team), or undefined outside a team. */
  listName: () => string | undefined;
  emit: (event: TeamEvent) => void;
  /** Poll interval while in a team (ms); 0 polls never. */
  intervalMs: number;
}

/** The runtime's view of the task list. */
export interface TaskWatch {
  /** Reads the list now (emitting `tasks` when it changed); undefined outside a team. */
  read(): Promise<TeamTaskList | undefined>;
  /** Asks for a read soon; calls close together are served by one read. */
  nudge(): void;
  /** Starts the poll and lets events nudge reads (before it, `listName` may not be callable yet). */
  start(): void;
  /** Feeds an event: task tools, messages, state changes and ends nudge a read. */
  observe(event: TeamEvent): void;
  /** The in-progress task `owner` works on, from the latest read. */
  currentTaskOf(owner: readonly string[]): TeamMemberTask | undefined;
  /** Stops the poll; later reads still work. */
  close(): void;
}

/** Tools after which the list may have changed (or the team, and so the list, come or gone). */
const TASK_TOOL = /^Task(Create|Update|List|Get)$|^Team(Create|Delete)$|^TodoWrite$/;

function fingerprint(list: TeamTaskList): string {
  return JSON.stringify([
    list.teamName,
    list.tasks.map(({ task, openBlockers, available }) => [
      task.id,
      task.subject,
      task.status,
      task.owner,
      task.activeForm,
      openBlockers,
      available,
    ]),
    list.problems.map((problem) => [problem.file, problem.code]),
  ]);
}

/** The lowest-id `in_progress` task owned by one of `owners`, if any. */
export function currentTaskIn(
  tasks: readonly ListedTask[],
  owners: readonly string[],
): TeamMemberTask | undefined {
  const found: Task | undefined = tasks.find(
    ({ task }) =>
      task.status === 'in_progress' && task.owner !== undefined && owners.includes(task.owner),
  )?.task;
  if (found === undefined) return undefined;
  return {
    id: found.id,
    subject: found.subject,
    ...(found.activeForm === undefined ? {} : { activeForm: found.activeForm }),
  };
}

/** Creates the watch (idle until `start()`); the poll reads only while `listName()` names a list. */
export function createTaskWatch(options: TaskWatchOptions): TaskWatch {
  let store: TaskStore | undefined;
  let latest: TeamTaskList | undefined;
  let latestPrint: string | undefined;
  let running: Promise<TeamTaskList | undefined> | undefined;
  let queued: Promise<TeamTaskList | undefined> | undefined;
  let nudged = false;
  let closed = false;

  const storeFor = (name: string): TaskStore => {
    if (store?.team !== name) store = createTaskStore({ root: options.root, team: name });
    return store;
  };

  const readOnce = async (): Promise<TeamTaskList | undefined> => {
    const name = options.listName();
    if (name === undefined) {
      // The team is gone (TeamDelete): its list is shown empty once.
      if (latest !== undefined && latest.tasks.length + latest.problems.length > 0) {
        options.emit({
          type: 'tasks',
          teamName: latest.teamName,
          tasks: [],
          problems: [],
          at: Date.now(),
        });
      }
      latest = undefined;
      latestPrint = undefined;
      return undefined;
    }
    const listed = await storeFor(name).list();
    const list: TeamTaskList = { teamName: name, tasks: listed.tasks, problems: listed.problems };
    latest = list;
    const print = fingerprint(list);
    if (print !== latestPrint) {
      latestPrint = print;
      options.emit({ type: 'tasks', ...list, at: Date.now() });
    }
    return list;
  };

  // One read at a time; a read asked for while one runs follows it (that one may have listed
  // the folder before the change asked about), and every caller meanwhile shares it.
  const read = (): Promise<TeamTaskList | undefined> => {
    if (running === undefined) {
      running = readOnce().finally(() => {
        running = undefined;
      });
      return running;
    }
    queued ??= running
      .catch(() => undefined)
      .then(() => {
        queued = undefined;
        return read();
      });
    return queued;
  };

  const report = (error: unknown) =>
    options.emit({
      type: 'notice',
      level: 'warning',
      text: `Reading the team's task list failed: ${(error as Error)?.message ?? String(error)}`,
      at: Date.now(),
    });

  const nudge = () => {
    if (nudged || closed) return;
    nudged = true;
    setImmediate(() => {
      nudged = false;
      void read().catch(report);
    });
  };

  let timer: NodeJS.Timeout | undefined;
  let started = false;

  return {
    read,
    nudge,
    start() {
      if (started || closed) return;
      started = true;
      if (options.intervalMs > 0) {
        timer = setInterval(() => {
          if (options.listName() !== undefined) nudge();
        }, options.intervalMs);
        timer.unref();
      }
    },
    observe(event) {
      if (!started) return;
      if (event.type === 'tasks' || event.type === 'usage' || event.type === 'notice') return;
      if (event.type === 'agent') {
        const inner = event.event;
        if (inner.type === 'tool_call_end' && TASK_TOOL.test(inner.name)) nudge();
        return;
      }
      nudge();
    },
    currentTaskOf: (owners) =>
      latest === undefined ? undefined : currentTaskIn(latest.tasks, owners),
    close() {
      closed = true;
      if (timer !== undefined) clearInterval(timer);
    },
  };
}
