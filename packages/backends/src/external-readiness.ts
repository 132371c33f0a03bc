// Readiness of a member that does not connect back (a real Claude Code teammate): it is ready
// when its first `idle_notification` appears in the lead's inbox. The inbox is only READ here,
// never locked or rewritten: Claude Code 2.1.45 takes the inbox lock synchronously with no
// retries, so a reader holding it would make the teammate drop its write. A file caught half
// rewritten (Claude Code rewrites inboxes in place) is simply read again on the next look.
import { readFile } from 'node:fs/promises';
import { watch, type FSWatcher } from 'node:fs';
import { dirname } from 'node:path';
import {
  assertSafePathSegment,
  createRootLayout,
  IdleNotificationSchema,
  InboxMessageSchema,
  parseProtocolMessage,
  TEAM_LEAD_NAME,
  type IdleNotification,
  type InboxMessage,
} from '@muster/protocol';
import type { MemberHandle } from './backend-types.js';
import { BackendError } from './backend-error.js';

/** Options of {@link waitForIdleNotification}. */
export interface WaitForIdleNotificationOptions {
  /** The root holding `teams/<team>` (Claude Code's `CLAUDE_CONFIG_DIR`). */
  root: string;
  teamName: string;
  /** The member whose idle notification counts (its name, not its agent id). */
  agentName: string;
  /** The inbox watched (default `team-lead`). */
  leadName?: string;
  /**
   * Only entries stamped at or after this time (epoch ms) count, so an idle notification left by
   * an earlier run of the same member is not taken for this one. Default: the time the wait
   * starts (an entry already in the inbox then never counts). Take `Date.now()` before spawning
   * and pass it when the wait starts after the spawn; pass 0 only to count every entry.
   */
  since?: number;
  /** How long to wait before rejecting with `NOT_READY` (default 60 000 ms). */
  timeoutMs?: number;
  /** Stops the wait; the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** How often the inbox is read when no change event came (default 200 ms). */
  pollIntervalMs?: number;
}

/** The idle notification that made the member ready. */
export interface IdleNotificationSeen {
  /** The inbox entry as the member wrote it. */
  entry: InboxMessage;
  /** Its decoded payload. */
  notification: IdleNotification;
  /** When this process first saw it (epoch ms). */
  seenAt: number;
}

function checkOptions(options: WaitForIdleNotificationOptions): void {
  for (const [label, value] of [
    ['teamName', options.teamName],
    ['agentName', options.agentName],
    ['leadName', options.leadName ?? TEAM_LEAD_NAME],
  ] as const) {
    try {
      assertSafePathSegment(value, label);
    } catch (error) {
      throw new BackendError({
        code: 'INVALID_SPEC',
        message: `waitForIdleNotification: ${label} ${JSON.stringify(value)} is not a valid file name part (${(error as Error).message}); pass the plain member name, e.g. "alice".`,
        cause: error,
      });
    }
  }
  if (typeof options.root !== 'string' || options.root.length === 0)
    throw new BackendError({
      code: 'INVALID_SPEC',
      message: 'waitForIdleNotification: root is empty; pass the folder that holds teams/<team>.',
    });
  for (const [label, value] of [
    ['timeoutMs', options.timeoutMs],
    ['pollIntervalMs', options.pollIntervalMs],
    ['since', options.since],
  ] as const) {
    if (value !== undefined && !(Number.isFinite(value) && value >= 0))
      throw new BackendError({
        code: 'INVALID_SPEC',
        message: `waitForIdleNotification: ${label} must be a number of milliseconds ≥ 0, got ${String(value)}.`,
      });
  }
}

/** What one read of the inbox found: the notification, or why the file could not be used. */
type InboxLook = { found: IdleNotificationSeen } | { problem?: string };

async function lookOnce(
  path: string,
  options: WaitForIdleNotificationOptions & { since: number },
): Promise<InboxLook> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    return { problem: `cannot read ${path}: ${(error as Error).message}` };
  }
  let entries: unknown;
  try {
    entries = JSON.parse(text);
  } catch {
    return { problem: `${path} is not JSON (caught mid-rewrite, or corrupt)` };
  }
  if (!Array.isArray(entries)) return { problem: `${path} is not a JSON array` };
  for (const candidate of entries) {
    const parsed = InboxMessageSchema.safeParse(candidate);
    if (!parsed.success || parsed.data.from !== options.agentName) continue;
    const entry = parsed.data;
    if (!(Date.parse(entry.timestamp) >= options.since)) continue;
    const payload = parseProtocolMessage(entry.text);
    if (payload?.type !== 'idle_notification') continue;
    const notification = IdleNotificationSchema.safeParse(payload);
    if (!notification.success || notification.data.from !== options.agentName) continue;
    return { found: { entry, notification: notification.data, seenAt: Date.now() } };
  }
  return {};
}

/**
 * Resolves with the member's first `idle_notification` in the lead's inbox
 * (`<root>/teams/<team>/inboxes/<lead>.json`), the readiness signal of a member started with
 * `readiness: 'external'`. Only entries stamped at or after `since` count (default: the time
 * this call starts), so a stale notification of an earlier run of the same name never counts:
 * start it before spawning, or pass a `since` taken before spawning, so a fast member is not
 * missed. Watches the inbox folder for changes and reads it at least every `pollIntervalMs`.
 * Rejects with `BackendError('NOT_READY')` after `timeoutMs`, saying what the inbox held, or
 * with the signal's reason when `signal` aborts.
 */
export function waitForIdleNotification(
  options: WaitForIdleNotificationOptions,
): Promise<IdleNotificationSeen> {
  checkOptions(options);
  const looked = { ...options, since: options.since ?? Date.now() };
  const leadName = options.leadName ?? TEAM_LEAD_NAME;
  const path = createRootLayout(options.root).inboxPath(options.teamName, leadName);
  const timeoutMs = options.timeoutMs ?? 60_000;
  const pollIntervalMs = Math.max(options.pollIntervalMs ?? 200, 20);
  return new Promise((resolve, reject) => {
    let settled = false;
    let looking = false;
    let again = false;
    let lastProblem: string | undefined;
    let watcher: FSWatcher | undefined;
    const finish = (outcome: () => void): void => {
      if (settled) return;
      settled = true;
      clearInterval(poll);
      clearTimeout(deadline);
      watcher?.close();
      options.signal?.removeEventListener('abort', onAbort);
      outcome();
    };
    const look = (): void => {
      if (settled) return;
      if (looking) {
        again = true;
        return;
      }
      looking = true;
      void lookOnce(path, looked).then((result) => {
        looking = false;
        if ('found' in result) return finish(() => resolve(result.found));
        lastProblem = result.problem;
        if (again) {
          again = false;
          look();
        }
      });
    };
    const onAbort = (): void => finish(() => reject(options.signal?.reason as Error));
    const poll = setInterval(look, pollIntervalMs);
    const deadline = setTimeout(
      () =>
        finish(() =>
          reject(
            new BackendError({
              code: 'NOT_READY',
              message: `${options.agentName}@${options.teamName} sent no idle_notification to ${leadName} within ${timeoutMs} ms (${path}${lastProblem ? `: ${lastProblem}` : ''}); look at the member's pane or log for why its first turn did not end.`,
              details: { inboxPath: path, agentName: options.agentName },
            }),
          ),
        ),
      timeoutMs,
    );
    if (options.signal?.aborted) return onAbort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      // The folder may not exist yet: then polling alone finds the file once it does.
      watcher = watch(dirname(path), { persistent: false }, look);
      watcher.on('error', () => watcher?.close());
    } catch {
      watcher = undefined;
    }
    look();
  });
}

/**
 * Wires {@link waitForIdleNotification} to a member started with `readiness: 'external'`: its
 * first idle notification calls `handle.markReady()`. The wait ends when the member exits first
 * (its `ready` then rejects by itself). `since` defaults to the time of this call, later than
 * the spawn: pass the `Date.now()` taken before spawning. Returns the wait, which never rejects: it resolves with
 * the notification, or `undefined` when none came.
 */
export function markReadyOnIdleNotification(
  handle: MemberHandle,
  options: Omit<WaitForIdleNotificationOptions, 'agentName' | 'teamName' | 'root'>,
): Promise<IdleNotificationSeen | undefined> {
  const controller = new AbortController();
  const onOuterAbort = (): void => controller.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', onOuterAbort, { once: true });
  void handle.exited.then(() => controller.abort(new Error('the member exited')));
  return waitForIdleNotification({
    ...options,
    root: handle.spec.root,
    teamName: handle.spec.teamName,
    agentName: handle.spec.agentName,
    timeoutMs: options.timeoutMs ?? handle.spec.readyTimeoutMs ?? 60_000,
    signal: controller.signal,
  })
    .then(
      (seen) => {
        handle.markReady();
        return seen;
      },
      () => undefined,
    )
    .finally(() => options.signal?.removeEventListener('abort', onOuterAbort));
}
