// Background agents of one parent agent: a task per run with the state machine
// running → completed | failed | killed (the first end wins: a kill racing a completion changes
// nothing), an output file under the session's folder opened without following links (mode
// 0600), progress (tokens, tool uses, the last five activities), and exactly one
// `<task-notification>` to the parent when the run ends.
import { constants } from 'node:fs';
import { mkdir, open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { AgentEvent } from '@muster/query';
import {
  formatTaskNotification,
  type NotificationQueue,
} from './background-agent-notifications.js';
import type { SubagentOutcome } from './subagent.js';
import type { TeamEventSink } from './team-event.js';

/** A background agent's state. */
export type BackgroundAgentStatus = 'running' | 'completed' | 'failed' | 'killed';

/** How many recent activities a task keeps. */
export const RECENT_ACTIVITY_COUNT = 5;

/** What a background agent has done so far. */
export interface BackgroundAgentProgress {
  /** The latest request's prompt tokens (uncached + cache write + cache read). */
  latestInputTokens: number;
  /** Output tokens over the whole run. */
  cumulativeOutputTokens: number;
  toolUseCount: number;
  /** The last {@link RECENT_ACTIVITY_COUNT} tool calls, as `Name: input summary`. */
  recentActivities: string[];
  lastActivityAt: number;
}

/** A snapshot of one background agent task. */
export interface BackgroundAgentTask {
  taskId: string;
  agentType: string;
  description: string;
  status: BackgroundAgentStatus;
  outputFile: string;
  startedAt: number;
  endedAt?: number;
  progress: BackgroundAgentProgress;
  /** The final reply (completed) or what went wrong (failed, killed). */
  result?: string;
}

/** Options of {@link createBackgroundAgents}. */
export interface BackgroundAgentsOptions {
  /** The session's folder: output files go to `<sessionDirectory>/tasks/<taskId>.output`. */
  sessionDirectory: string;
  /** The parent agent's name (events). */
  parentName: string;
  /** Where the `<task-notification>` goes (the parent's queue). */
  notifications: NotificationQueue;
  onEvent?: TeamEventSink;
}

/** What {@link BackgroundAgents.launch} runs. */
export interface BackgroundLaunch {
  taskId: string;
  agentType: string;
  description: string;
  /** Runs the agent; aborting `signal` is a kill. Feed `onAgentEvent` the agent's events. */
  run(signal: AbortSignal, onAgentEvent: (event: AgentEvent) => void): Promise<SubagentOutcome>;
  /** Runs once the task has ended (worktree cleanup); its text is appended to the output. */
  cleanup?: () => Promise<string | undefined>;
}

/** The background agents of one parent. */
export interface BackgroundAgents {
  /** Opens the output file, starts the run, emits `spawn`; resolves with the running task. */
  launch(launch: BackgroundLaunch): Promise<BackgroundAgentTask>;
  get(taskId: string): BackgroundAgentTask | undefined;
  list(): BackgroundAgentTask[];
  /** Resolves when the task has ended (and its notification is queued) or `timeoutMs` passed. */
  wait(taskId: string, timeoutMs: number, signal?: AbortSignal): Promise<BackgroundAgentTask>;
  /** Kills a running task; a task that already ended is returned unchanged. */
  stop(taskId: string, reason?: string): Promise<BackgroundAgentTask>;
  /** Kills every running task and waits for their ends. */
  close(): Promise<void>;
}

interface Entry {
  task: BackgroundAgentTask;
  controller: AbortController;
  file: FileHandle;
  writes: Promise<void>;
  ended: Promise<void>;
  markEnded: () => void;
}

function activityOf(name: string, input: unknown): string {
  const text = JSON.stringify(input) ?? '';
  return `${name}: ${text.length > 80 ? `${text.slice(0, 80)}…` : text}`;
}

/** Opens the output file for writing: created new, never through a symbolic link, mode 0600. */
export async function openOutputFile(file: string): Promise<FileHandle> {
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
  try {
    return await open(file, flags, 0o600);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new Error(
      `Cannot open the background agent's output file ${file} (${code ?? String(error)}): ` +
        'it must not exist yet and must not be a symbolic link; remove what is there or use another session folder.',
      { cause: error },
    );
  }
}

/** Creates the background-agent registry of one parent agent. */
export function createBackgroundAgents(options: BackgroundAgentsOptions): BackgroundAgents {
  if (typeof options?.sessionDirectory !== 'string' || !path.isAbsolute(options.sessionDirectory)) {
    throw new TypeError(
      'createBackgroundAgents: sessionDirectory must be an absolute path (the session folder).',
    );
  }
  const entries = new Map<string, Entry>();

  const append = (entry: Entry, text: string): void => {
    entry.writes = entry.writes
      .then(() => entry.file.write(text))
      .then(
        () => undefined,
        (error: unknown) => {
          const reason = `Cannot write the output file ${entry.task.outputFile}: ${error instanceof Error ? error.message : String(error)}.`;
          options.onEvent?.({
            type: 'notice',
            level: 'error',
            text: reason,
            agentName: entry.task.taskId,
            at: Date.now(),
          });
          if (end(entry, 'failed', reason)) entry.controller.abort(new Error(reason));
        },
      );
  };

  const end = (
    entry: Entry,
    status: Exclude<BackgroundAgentStatus, 'running'>,
    result: string | undefined,
  ): boolean => {
    if (entry.task.status !== 'running') return false;
    entry.task.status = status;
    entry.task.endedAt = Date.now();
    if (result !== undefined) entry.task.result = result;
    return true;
  };

  const finish = async (entry: Entry, cleanup: BackgroundLaunch['cleanup']): Promise<void> => {
    const { task } = entry;
    append(entry, `\n[${task.status}]\n${task.result ?? ''}\n`);
    if (cleanup !== undefined) {
      const said = await cleanup().catch((error: unknown) => `Cleanup failed: ${String(error)}`);
      if (said !== undefined) append(entry, `${said}\n`);
    }
    await entry.writes;
    await entry.file.close().catch(() => undefined);
    options.notifications.push(
      formatTaskNotification({
        taskId: task.taskId,
        status: task.status as 'completed' | 'failed' | 'killed',
        description: task.description,
        outputFile: task.outputFile,
        ...(task.result === undefined ? {} : { result: task.result }),
      }),
    );
    options.onEvent?.({
      type: 'spawn_end',
      path: 'background',
      agentName: task.taskId,
      status: task.status as 'completed' | 'failed' | 'killed',
      ...(task.result === undefined ? {} : { message: task.result }),
      at: Date.now(),
    });
    entry.markEnded();
  };

  const snapshot = (entry: Entry): BackgroundAgentTask => structuredClone(entry.task);

  const find = (taskId: string): Entry => {
    const entry = entries.get(taskId);
    if (entry === undefined) {
      const known = [...entries.keys()];
      throw new Error(
        `No background agent task "${taskId}". ${known.length === 0 ? 'None was started in this session.' : `Known task ids: ${known.join(', ')}.`}`,
      );
    }
    return entry;
  };

  return {
    async launch(launch) {
      if (entries.has(launch.taskId))
        throw new Error(`A background task "${launch.taskId}" exists already.`);
      const outputFile = path.join(options.sessionDirectory, 'tasks', `${launch.taskId}.output`);
      const file = await openOutputFile(outputFile);
      let markEnded = (): void => undefined;
      const ended = new Promise<void>((resolve) => (markEnded = resolve));
      const entry: Entry = {
        task: {
          taskId: launch.taskId,
          agentType: launch.agentType,
          description: launch.description,
          status: 'running',
          outputFile,
          startedAt: Date.now(),
          progress: {
            latestInputTokens: 0,
            cumulativeOutputTokens: 0,
            toolUseCount: 0,
            recentActivities: [],
            lastActivityAt: Date.now(),
          },
        },
        controller: new AbortController(),
        file,
        writes: Promise.resolve(),
        ended,
        markEnded,
      };
      entries.set(launch.taskId, entry);
      options.onEvent?.({
        type: 'spawn',
        path: 'background',
        agentName: launch.taskId,
        agentType: launch.agentType,
        parentName: options.parentName,
        at: Date.now(),
      });
      const onAgentEvent = (event: AgentEvent): void => {
        const { progress } = entry.task;
        if (event.type === 'usage') {
          const usage = event.request;
          progress.latestInputTokens =
            usage.inputTokens + usage.cacheCreationInputTokens + usage.cacheReadInputTokens;
          progress.cumulativeOutputTokens += usage.outputTokens;
        } else if (event.type === 'tool_call_start') {
          progress.toolUseCount += 1;
          const activity = activityOf(event.name, event.input);
          progress.recentActivities = [...progress.recentActivities, activity].slice(
            -RECENT_ACTIVITY_COUNT,
          );
          progress.lastActivityAt = Date.now();
          append(entry, `${activity}\n`);
        } else if (event.type === 'assistant_message') {
          const text = event.message.content
            .flatMap((block) => (block.type === 'text' ? [block.text] : []))
            .join('');
          if (text !== '') append(entry, `${text}\n`);
        }
      };
      void launch
        .run(entry.controller.signal, onAgentEvent)
        .then(
          (outcome) => {
            if (outcome.reason === 'completed') end(entry, 'completed', outcome.text);
            else if (outcome.reason === 'aborted') end(entry, 'killed', 'The agent was aborted.');
            else
              end(
                entry,
                'failed',
                outcome.error?.message ?? `The agent's turn ended with ${outcome.reason}.`,
              );
          },
          (error: unknown) =>
            end(entry, 'failed', error instanceof Error ? error.message : String(error)),
        )
        .then(() => finish(entry, launch.cleanup));
      return snapshot(entry);
    },
    get(taskId) {
      const entry = entries.get(taskId);
      return entry === undefined ? undefined : snapshot(entry);
    },
    list() {
      return [...entries.values()].map(snapshot);
    },
    async wait(taskId, timeoutMs, signal) {
      const entry = find(taskId);
      let timer: NodeJS.Timeout | undefined;
      let onAbort: (() => void) | undefined;
      await Promise.race([
        entry.ended,
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, Math.max(0, timeoutMs));
          onAbort = resolve;
          signal?.addEventListener('abort', onAbort, { once: true });
        }),
      ]);
      clearTimeout(timer);
      if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort);
      return snapshot(entry);
    },
    async stop(taskId, reason) {
      const entry = find(taskId);
      if (end(entry, 'killed', reason ?? 'Stopped by request.')) {
        entry.controller.abort(new Error(reason ?? 'background agent stopped'));
        await entry.ended;
      }
      return snapshot(entry);
    },
    async close() {
      await Promise.all(
        [...entries.keys()].map((taskId) => this.stop(taskId, 'The session ended.')),
      );
      await Promise.all([...entries.values()].map((entry) => entry.ended));
    },
  };
}
