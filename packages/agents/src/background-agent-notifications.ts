// How a background agent's end reaches the agent that started it: one `<task-notification>`
// user input. While the parent is in a turn it joins the next tool-result boundary through
// query's `pendingInput`; otherwise it waits in the queue for the parent's next turn (the
// embedding program drains it and sends it).
import type Anthropic from '@anthropic-ai/sdk';

/** The queue of notifications waiting for the parent agent. */
export interface NotificationQueue {
  /** Adds a notification; listeners are told. */
  push(text: string): void;
  /**
   * For `createAgent({ pendingInput })` of the parent: every waiting notification as text
   * blocks, removed from the queue; undefined when none waits.
   */
  pendingInput(): Anthropic.ContentBlockParam[] | undefined;
  /** Every waiting notification, removed from the queue (send them as the parent's next turn). */
  drain(): string[];
  /** How many wait. */
  readonly size: number;
  /** Called after each push (e.g. to start the parent's next turn when it is idle). Returns an unsubscribe. */
  onPush(listener: () => void): () => void;
}

/** Creates an empty notification queue. */
export function createNotificationQueue(): NotificationQueue {
  const waiting: string[] = [];
  const listeners = new Set<() => void>();
  return {
    push(text) {
      if (typeof text !== 'string' || text === '') {
        throw new TypeError(
          'NotificationQueue.push: pass the notification text (a non-empty string).',
        );
      }
      waiting.push(text);
      for (const listener of listeners) listener();
    },
    pendingInput() {
      if (waiting.length === 0) return undefined;
      return waiting.splice(0).map((text) => ({ type: 'text', text }));
    },
    drain() {
      return waiting.splice(0);
    },
    get size() {
      return waiting.length;
    },
    onPush(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** What a `<task-notification>` says about one ended background agent. */
export interface TaskNotificationFields {
  taskId: string;
  status: 'completed' | 'failed' | 'killed';
  description: string;
  outputFile: string;
  /** The agent's final reply (completed) or the error (failed). */
  result?: string;
}

function escapeText(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/** Renders the `<task-notification>` block (the element names of Claude Code; muster's summary wording). */
export function formatTaskNotification(fields: TaskNotificationFields): string {
  const what =
    fields.status === 'completed'
      ? 'finished its work'
      : fields.status === 'failed'
        ? 'stopped with an error'
        : 'was stopped before it finished';
  const lines = [
    '<task-notification>',
    `<task-id>${escapeText(fields.taskId)}</task-id>`,
    `<status>${fields.status}</status>`,
    `<summary>Background agent "${escapeText(fields.description)}" ${what}.</summary>`,
  ];
  if (fields.result !== undefined && fields.result !== '') {
    lines.push(`<result>${escapeText(fields.result)}</result>`);
  }
  lines.push(`<output-file>${escapeText(fields.outputFile)}</output-file>`, '</task-notification>');
  return lines.join('\n');
}
