// The member's side of the lead link: connect to the lead's socket, say hello, say ready
// once the inbox was read, and end (with everything this member started) as soon as the
// connection closes, because then the lead is gone (R31; measured 6 ms on this machine).
import { connect, type Socket } from 'node:net';
import { BackendError } from './backend-error.js';
import {
  AGENT_ID_VARIABLE,
  LEAD_SOCKET_VARIABLE,
  lineSplitter,
  MEMBER_SECRET_VARIABLE,
  parseLeadMessage,
} from './lead-link-messages.js';
import { registerCleanup } from './cleanup-registry.js';
import {
  closeOwnTmuxPane,
  endOwnedProcesses,
  killOwnedProcessesNow,
} from './member-link-processes.js';

/** How long the default lead-gone handler lets this member's processes end after SIGTERM. */
const LEAD_GONE_GRACE_MS = 400;

/** Options of {@link connectToLead}. */
export interface ConnectToLeadOptions {
  /** Default: the environment variable `MUSTER_LEAD_SOCKET`. */
  socketPath?: string;
  /** Default: the environment variable `MUSTER_AGENT_ID`. */
  agentId?: string;
  /**
   * The secret the lead made for this member at spawn; default the environment variable
   * `MUSTER_MEMBER_SECRET`. The lead refuses a hello without it.
   */
  secret?: string;
  /**
   * Called once when the connection closes without this member closing it (the lead is gone,
   * closed the link, or refused this member; `reason` says which). Default
   * {@link endMemberBecauseLeadIsGone}: ends this member and its processes within 1 s.
   */
  onLeadGone?: (reason: string) => void;
  /** How long connecting may take (default 5 000 ms). */
  timeoutMs?: number;
  /**
   * Default true: while the link is open, whatever ends this member (SIGINT, SIGTERM, SIGHUP,
   * an uncaught error, `process.exit`) also ends every process it started (`registerCleanup`),
   * so a grandchild in a new session or one ignoring SIGHUP/SIGTERM is not left behind when
   * the member's pane or terminal closes. Note that it installs signal handlers: a member that
   * handles SIGTERM itself and wants to keep running after it should pass false.
   */
  endOwnProcesses?: boolean;
}

/** The member's end of the lead link. */
export interface MemberLink {
  /** Tells the lead this member is ready (it read its inbox). Resolves once the line is written. Idempotent. */
  ready(): Promise<void>;
  /** Closes the link on purpose (the lead-gone handler is not called). Idempotent. */
  close(): void;
}

/**
 * The default lead-gone handler: SIGTERM to every process this member started (its group when
 * it leads one, its session when it leads one, and its descendants), SIGKILL to those still
 * there after 400 ms, closes its own tmux pane when it is a pane's process (a pane kept on
 * exit would keep a private server alive), then SIGTERM to itself (so registered cleanups run)
 * and, if that does not end it, `process.exit(143)` shortly after. All within 1 s.
 */
export function endMemberBecauseLeadIsGone(reason: string): void {
  process.stderr.write(
    `muster member ${process.env[AGENT_ID_VARIABLE] ?? process.pid}: ${reason}; ending\n`,
  );
  void endOwnedProcesses(LEAD_GONE_GRACE_MS).finally(() => {
    closeOwnTmuxPane();
    setTimeout(() => process.exit(143), 300).unref();
    process.kill(process.pid, 'SIGTERM');
  });
}

/**
 * Connects this member to its lead (`MUSTER_LEAD_SOCKET`) and says hello as `MUSTER_AGENT_ID`
 * with its secret (`MUSTER_MEMBER_SECRET`).
 * The connection does not keep the process alive by itself. Throws
 * `BackendError('LINK_FAILED')` naming the socket when it cannot connect.
 */
export async function connectToLead(options: ConnectToLeadOptions = {}): Promise<MemberLink> {
  const socketPath = options.socketPath ?? process.env[LEAD_SOCKET_VARIABLE];
  const agentId = options.agentId ?? process.env[AGENT_ID_VARIABLE];
  if (socketPath === undefined || socketPath.length === 0) {
    throw new BackendError({
      code: 'LINK_FAILED',
      message: `No lead link socket: pass { socketPath } or set ${LEAD_SOCKET_VARIABLE} (process backends set it for their members).`,
    });
  }
  if (agentId === undefined || agentId.length === 0) {
    throw new BackendError({
      code: 'LINK_FAILED',
      message: `No agent id for the lead link ${socketPath}: pass { agentId } or set ${AGENT_ID_VARIABLE} (<name>@<team>).`,
      details: { socketPath },
    });
  }
  const secret = options.secret ?? process.env[MEMBER_SECRET_VARIABLE];
  if (secret === undefined || secret.length === 0) {
    throw new BackendError({
      code: 'LINK_FAILED',
      message: `No member secret for ${agentId} on the lead link ${socketPath}: pass { secret } or set ${MEMBER_SECRET_VARIABLE} (the backend that started this member sets it; the lead refuses a hello without it).`,
      details: { socketPath, agentId },
    });
  }
  const onLeadGone = options.onLeadGone ?? endMemberBecauseLeadIsGone;
  const timeoutMs = options.timeoutMs ?? 5_000;

  const socket: Socket = await new Promise((resolve, reject) => {
    const attempt = connect(socketPath);
    const timer = setTimeout(() => {
      attempt.destroy();
      reject(
        new BackendError({
          code: 'LINK_FAILED',
          message: `Could not connect to the lead link ${socketPath} within ${timeoutMs} ms; is the lead still running?`,
          details: { socketPath, agentId },
        }),
      );
    }, timeoutMs);
    attempt.once('connect', () => {
      clearTimeout(timer);
      resolve(attempt);
    });
    attempt.once('error', (error) => {
      clearTimeout(timer);
      reject(
        new BackendError({
          code: 'LINK_FAILED',
          message: `Could not connect to the lead link ${socketPath}: ${error.message}. The lead is gone or the path is wrong; check ${LEAD_SOCKET_VARIABLE}.`,
          details: { socketPath, agentId },
          cause: error,
        }),
      );
    });
  });

  const unregisterCleanup =
    options.endOwnProcesses === false
      ? () => {}
      : registerCleanup(
          `processes of member ${agentId}`,
          () => endOwnedProcesses(LEAD_GONE_GRACE_MS),
          {
            sync: killOwnedProcessesNow,
          },
        );
  let closedOnPurpose = false;
  let goneReason = 'the lead link closed (the lead is gone)';
  let saidReady: Promise<void> | undefined;
  socket.unref();
  socket.on(
    'data',
    lineSplitter(
      (line) => {
        const message = parseLeadMessage(line);
        if (message?.type === 'refused')
          goneReason = `the lead refused this member: ${message.reason}`;
      },
      () => socket.destroy(),
    ),
  );
  socket.on('error', () => socket.destroy());
  socket.once('close', () => {
    if (!closedOnPurpose) onLeadGone(goneReason);
  });
  socket.write(`${JSON.stringify({ type: 'hello', agentId, pid: process.pid, secret })}\n`);

  return {
    ready() {
      saidReady ??= new Promise<void>((resolve) => {
        if (socket.destroyed) return resolve();
        socket.write(`${JSON.stringify({ type: 'ready' })}\n`, () => resolve());
      });
      return saidReady;
    },
    close() {
      if (closedOnPurpose) return;
      closedOnPurpose = true;
      unregisterCleanup();
      socket.end();
    },
  };
}
