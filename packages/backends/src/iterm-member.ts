// One member in an iTerm2 pane. Its launch script records `<pid> <pgid>` and, when the
// command ends, its exit status; the handle reads those files, and the backend's reconciler
// tells it when the pane's session left `it2 session list`. Identity (pid + start time) is
// re-checked before any signal: a pid that now belongs to another process is never touched.
import { existsSync, readFileSync } from 'node:fs';
import { BackendError } from './backend-error.js';
import type { MemberExit, MemberHandle, MemberSpec, MemberView } from './backend-types.js';
import { isSameProcess, readProcessIdentity, type ProcessIdentity } from './process-control.js';

/** What the backend gives a member handle. */
export interface ITermMemberOptions {
  spec: MemberSpec;
  sessionId: string;
  pidFile: string;
  exitFile: string;
  /** Closes the member's pane (`it2 session close -f -s <id>`). */
  closeSession: () => Promise<void>;
  /** Resolves when the member connected back and said ready (connect-back readiness). */
  waitForReady?: (timeoutMs: number, signal: AbortSignal) => Promise<void>;
}

const DEFAULT_READY_TIMEOUT_MS = 15_000;
const DEFAULT_KILL_DEADLINE_MS = 5_000;

/** The member's process as its launch script recorded it, with the identities read then. */
export interface ITermProcessRecord {
  pid: number;
  pgid: number;
  /** The member process (pid + start time), read when the pid file appeared; undefined without /proc. */
  identity: ProcessIdentity | undefined;
  /** The group leader (the process whose pid is `pgid`) as it was then; undefined when it was already gone. */
  groupLeader: ProcessIdentity | undefined;
}

type ProcessRecord = ITermProcessRecord;

/** Without /proc (macOS) no identity can be read: a pid is only checked with signal 0. */
const HAS_PROC_FILE_SYSTEM = existsSync('/proc/self/stat');

/** A member running in an iTerm2 pane (see the file comment). */
export class ITermMemberHandle implements MemberHandle {
  readonly spec: MemberSpec;
  readonly backend = 'iterm2' as const;
  readonly ready: Promise<void>;
  readonly exited: Promise<MemberExit>;
  readonly sessionId: string;
  readonly #options: ITermMemberOptions;
  readonly #readyAbort = new AbortController();
  #resolveExit!: (exit: MemberExit) => void;
  #resolveExternalReady: (() => void) | undefined;
  #exit: MemberExit | undefined;
  #process: ProcessRecord | undefined;
  #killing: Promise<MemberExit> | undefined;

  constructor(options: ITermMemberOptions) {
    this.#options = options;
    this.spec = options.spec;
    this.sessionId = options.sessionId;
    this.exited = new Promise((resolve) => {
      this.#resolveExit = resolve;
    });
    this.ready = this.#startReadiness();
    this.ready.catch(() => {});
  }

  #startReadiness(): Promise<void> {
    const timeoutMs = this.spec.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS;
    const waiting =
      this.spec.readiness === 'external' || this.#options.waitForReady === undefined
        ? new Promise<void>((resolve, reject) => {
            this.#resolveExternalReady = resolve;
            const timer = setTimeout(
              () => reject(new Error(`no idle notification within ${timeoutMs} ms`)),
              timeoutMs,
            );
            this.#readyAbort.signal.addEventListener('abort', () => {
              clearTimeout(timer);
              reject(new Error('it ended first'));
            });
          })
        : this.#options.waitForReady(timeoutMs, this.#readyAbort.signal);
    return waiting.catch(async (cause: unknown) => {
      const detail = cause instanceof Error ? cause.message : String(cause);
      const started = this.processRecord();
      const why =
        started === undefined
          ? "its launch line never ran: the pane's shell swallowed the typed line (look at its rc files for commands that read or drain terminal input)"
          : `its process ${started.pid} started but did not say ready; run the member's command by hand to see why it stops`;
      const message = `${this.spec.agentId} did not become ready in iTerm2 session ${this.sessionId} (${detail}); ${why}. The pane was closed.`;
      if (this.#exit === undefined) {
        await this.#terminate({ graceful: false, deadlineMs: 1_000 }, 'not-ready', message);
      }
      throw new BackendError({ code: 'NOT_READY', message, cause });
    });
  }

  /** For `readiness: 'external'`: the caller saw the member's first idle notification. */
  markReady(): void {
    this.#resolveExternalReady?.();
  }

  /** The member's process as its launch script recorded it, once it has started. */
  processRecord(): ProcessRecord | undefined {
    if (this.#process !== undefined) return this.#process;
    const text = readText(this.#options.pidFile);
    const [pid, pgid] = (text ?? '').trim().split(/\s+/).map(Number);
    if (pid === undefined || !Number.isInteger(pid) || pid <= 0) return undefined;
    this.#process = {
      pid,
      pgid: pgid !== undefined && Number.isInteger(pgid) && pgid > 0 ? pgid : pid,
      identity: readProcessIdentity(pid),
      groupLeader: undefined,
    };
    this.#process.groupLeader =
      this.#process.pgid === pid ? this.#process.identity : readProcessIdentity(this.#process.pgid);
    return this.#process;
  }

  /** The recorded exit status, once the launch script wrote it. */
  exitStatus(): number | undefined {
    const text = readText(this.#options.exitFile);
    const status = Number((text ?? '').trim());
    return text !== undefined && text.trim() !== '' && Number.isInteger(status)
      ? status
      : undefined;
  }

  /** Whether the member's process still runs (from the process itself, never a cached flag). */
  isAlive(): boolean {
    if (this.#exit !== undefined || this.exitStatus() !== undefined) return false;
    const record = this.processRecord();
    if (record === undefined) return true; // the pane exists and its script has not started yet
    return isMemberAlive(record);
  }

  /**
   * Looks at the member once (called by the backend's reconciler): records its exit when the
   * launch script wrote one, or when its process or its pane is gone without one.
   */
  reconcile(sessionListed: boolean | undefined): MemberExit | undefined {
    if (this.#exit !== undefined) return this.#exit;
    if (this.#killing !== undefined) return undefined; // the kill in progress records the exit
    const status = this.exitStatus();
    if (status !== undefined) {
      const signal = status > 128 && status < 160 ? signalName(status - 128) : null;
      return this.#finish({
        reason: status === 0 ? 'exited' : signal !== null ? 'crashed' : 'exited',
        code: status,
        signal,
        message:
          status === 0
            ? `${this.spec.agentId} exited with code 0; its iTerm2 pane was closed.`
            : `${this.spec.agentId} exited with code ${status}${signal === null ? '' : ` (${signal})`}; its iTerm2 pane ${this.sessionId} was kept for inspection (it2 session focus ${this.sessionId}).`,
      });
    }
    const record = this.processRecord();
    const processGone = record !== undefined && !isMemberAlive(record);
    if (processGone || sessionListed === false) {
      if (sessionListed === false && record !== undefined && !processGone) {
        signalGroup(record, 'SIGKILL');
      }
      return this.#finish({
        reason: 'vanished',
        code: null,
        signal: null,
        message: `${this.spec.agentId} is gone: ${sessionListed === false ? `iTerm2 session ${this.sessionId} is no longer listed (the pane was closed)` : `its process ${record?.pid} ended without an exit status`}.`,
      });
    }
    return undefined;
  }

  /** Ends the member: SIGTERM to its group, SIGKILL after the deadline, then closes the pane. */
  kill(options: { graceful?: boolean; deadlineMs?: number } = {}): Promise<MemberExit> {
    if (this.#exit !== undefined) return Promise.resolve(this.#exit);
    return this.#terminate(
      options,
      'killed',
      `${this.spec.agentId} was killed; its iTerm2 pane was closed.`,
    );
  }

  #terminate(
    options: { graceful?: boolean; deadlineMs?: number },
    reason: 'killed' | 'not-ready',
    message: string,
  ): Promise<MemberExit> {
    this.#killing ??= (async () => {
      const record = this.processRecord();
      if (record !== undefined && options.graceful !== false && isMemberAlive(record)) {
        signalGroup(record, 'SIGTERM');
        const deadline = Date.now() + (options.deadlineMs ?? DEFAULT_KILL_DEADLINE_MS);
        while (Date.now() < deadline && isMemberAlive(record)) {
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
      // Anything left in the member's group (a grandchild ignoring SIGTERM) is killed too.
      if (record !== undefined) killRecordedGroup(record);
      await this.#options.closeSession().catch(() => {});
      return this.#finish({ reason, code: null, signal: null, message });
    })();
    return this.#killing;
  }

  /** The lead is ending (sync cleanup pass): SIGKILL the member's group while it is still the member's. */
  killNow(): void {
    if (this.#exit !== undefined) return;
    const record = this.processRecord();
    if (record !== undefined) killRecordedGroup(record);
  }

  #finish(exit: Omit<MemberExit, 'at'>): MemberExit {
    if (this.#exit !== undefined) return this.#exit;
    this.#exit = { ...exit, at: Date.now() };
    this.#readyAbort.abort();
    this.#resolveExit(this.#exit);
    return this.#exit;
  }

  /** Pane (session) id, pid, and how to look at it. */
  describe(): MemberView & { pgid?: number } {
    const record = this.processRecord();
    return {
      backend: 'iterm2',
      paneId: this.sessionId,
      ...(record === undefined ? {} : { pid: record.pid, pgid: record.pgid }),
      attachCommand: `it2 session focus ${this.sessionId}`,
      notes: [`iTerm2 session ${this.sessionId}`],
    };
  }
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** Alive and still the same process: pid and start time (signal 0 alone where there is no /proc). */
function isMemberAlive(record: ProcessRecord): boolean {
  if (record.identity !== undefined) return isSameProcess(record.identity);
  if (HAS_PROC_FILE_SYSTEM) return false; // the pid was gone when its file was read
  try {
    process.kill(record.pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether the process group `record.pgid` may still be signalled as the member's (R16). A
 * process group id stays allocated while any process uses it, so with the member itself alive
 * it is the member's. With the member gone: where the group's leader still runs it must be the
 * one recorded (same start time); where no process has that pid the group can only hold what
 * is left of the member's (the kernel does not hand out a pid still used as a group id). Without
 * /proc nothing can be verified, so only a live member's group is signalled.
 */
export function mayKillRecordedGroup(record: ITermProcessRecord): boolean {
  if (isMemberAlive(record)) return true;
  if (!HAS_PROC_FILE_SYSTEM) return false;
  const leader = readProcessIdentity(record.pgid);
  if (leader === undefined) return groupExists(record.pgid);
  return record.groupLeader !== undefined && isSameProcess(record.groupLeader);
}

/** SIGKILLs the member's process group, only when {@link mayKillRecordedGroup} allows it. */
export function killRecordedGroup(record: ITermProcessRecord): boolean {
  if (!mayKillRecordedGroup(record)) return false;
  try {
    process.kill(-record.pgid, 'SIGKILL');
    return true;
  } catch {
    return false; // already gone
  }
}

/** Signals the member's process group, only while the pid is still the member's. */
function signalGroup(record: ProcessRecord, signal: NodeJS.Signals): void {
  if (!isMemberAlive(record)) return;
  for (const target of [-record.pgid, record.pid]) {
    try {
      process.kill(target, signal);
      return;
    } catch {
      // try the process itself when its group cannot be signalled
    }
  }
}

function groupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

function signalName(number: number): string | null {
  const names: Record<number, string> = { 1: 'SIGHUP', 2: 'SIGINT', 9: 'SIGKILL', 15: 'SIGTERM' };
  return names[number] ?? `signal ${number}`;
}
