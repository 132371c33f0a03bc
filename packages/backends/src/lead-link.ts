// The lead's side of the lead link (R14, R31): a Unix socket every process member connects
// back to. A member is ready only when it said so over this socket, and a member whose socket
// closes knows its lead is gone and ends itself (member-link.ts).
import { chmodSync, existsSync, rmSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { BackendError } from './backend-error.js';
import {
  AGENT_ID_VARIABLE,
  LEAD_SOCKET_VARIABLE,
  lineSplitter,
  MEMBER_SECRET_VARIABLE,
  parseMemberMessage,
} from './lead-link-messages.js';
import { createMemberSecret, secretDigest, secretMatches } from './lead-link-secret.js';
import {
  chooseLeadSocketPath,
  prepareLeadSocketLocation,
  releaseLeadSocketLocation,
} from './lead-link-socket-path.js';

/** How long a new connection may take to say hello before it is closed. */
const HELLO_TIMEOUT_MS = 10_000;

/** Options of {@link createLeadLink}. */
export interface LeadLinkOptions {
  /** The team folder (`<root>/teams/<team>`); the socket is `<teamFolder>/.lead.sock` when it fits. */
  teamFolder: string;
  /** Where refused connections and malformed lines are reported (default: a process warning). */
  log?: (message: string) => void;
}

/** The lead's end of the lead link. */
export interface LeadLink {
  /** The socket members connect to (`<teamFolder>/.lead.sock`, or a temp-folder path named in `<teamFolder>/lead-link.json`). */
  readonly socketPath: string;
  /**
   * Resolves once `agentId` is connected and said ready (at once if it already did). Rejects
   * with `BackendError('NOT_READY')` after `timeoutMs`, when `signal` aborts, when the member's
   * connection closes before it said ready, or when the link closes.
   */
  waitForReady(
    agentId: string,
    options: { timeoutMs: number; signal?: AbortSignal },
  ): Promise<void>;
  /**
   * Makes a new secret for `agentId`, expects it (as {@link LeadLink.expectMember}) and returns
   * the variables to put in that member's environment: `MUSTER_LEAD_SOCKET`, `MUSTER_AGENT_ID`
   * and `MUSTER_MEMBER_SECRET`. Every process backend calls it at spawn.
   */
  memberEnvironment(agentId: string): Record<string, string>;
  /**
   * Accepts one hello as `agentId`, and only with `secret` (compared in constant time; the link
   * keeps only its digest). A later call for the same agent id replaces the secret; the hello
   * that used it consumes it. Returns a function that withdraws it (for a spawn that failed).
   * A hello with a wrong or missing secret, or for an agent id nobody expects, is refused and
   * logged with the agent id, never the secret.
   */
  expectMember(agentId: string, secret: string): () => void;
  /** Whether `agentId` has a live connection (it said hello and has not disconnected). */
  isConnected(agentId: string): boolean;
  /** Whether `agentId` is connected and said ready. */
  isReady(agentId: string): boolean;
  /** Calls `listener` whenever a member that said hello disconnects. Returns the unsubscribe function. */
  onDisconnect(listener: (agentId: string) => void): () => void;
  /** Closes every member connection (those members end themselves) and removes the socket. Idempotent. */
  close(): Promise<void>;
}

interface Connection {
  socket: Socket;
  agentId?: string;
  ready: boolean;
}

interface Waiter {
  agentId: string;
  resolve: () => void;
  reject: (error: BackendError) => void;
}

function notReady(agentId: string, why: string): BackendError {
  return new BackendError({
    code: 'NOT_READY',
    message: `Member ${agentId} is not ready: ${why}.`,
    details: { agentId },
  });
}

async function refuseIfLive(socketPath: string): Promise<void> {
  if (!existsSync(socketPath)) return;
  const live = await new Promise<boolean>((resolve) => {
    const probe = connect(socketPath);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
  if (live) {
    throw new BackendError({
      code: 'LINK_FAILED',
      message: `Another lead is already listening on ${socketPath}. Close that lead (or its team) before starting a new one on the same team folder.`,
      details: { socketPath },
    });
  }
  rmSync(socketPath, { force: true });
}

/** Opens the lead link of a team: a Unix socket (mode 0600) members connect back to. */
export async function createLeadLink(options: LeadLinkOptions): Promise<LeadLink> {
  if (typeof options?.teamFolder !== 'string' || options.teamFolder.length === 0) {
    throw new BackendError({
      code: 'LINK_FAILED',
      message: 'createLeadLink needs { teamFolder }: the team folder path (<root>/teams/<team>).',
    });
  }
  if (!existsSync(options.teamFolder)) {
    throw new BackendError({
      code: 'LINK_FAILED',
      message: `The team folder ${options.teamFolder} does not exist; create the team before opening its lead link.`,
      details: { teamFolder: options.teamFolder },
    });
  }
  const log = options.log ?? ((message: string) => process.emitWarning(message, 'MusterLeadLink'));
  const location = chooseLeadSocketPath(options.teamFolder);
  const { socketPath } = location;
  prepareLeadSocketLocation(location);
  await refuseIfLive(socketPath);

  const connections = new Set<Connection>();
  const byAgent = new Map<string, Connection>();
  const waiters = new Set<Waiter>();
  const disconnectListeners = new Set<(agentId: string) => void>();
  /** Agent id → digest of the secret its one accepted hello must carry. */
  const expected = new Map<string, Buffer>();
  let closed = false;

  const expectMember = (agentId: string, secret: string): (() => void) => {
    if (typeof agentId !== 'string' || agentId.length === 0) {
      throw new BackendError({
        code: 'LINK_FAILED',
        message: `lead link ${socketPath}: expectMember needs a non-empty agent id (<name>@<team>), got ${String(agentId)}`,
      });
    }
    if (typeof secret !== 'string' || secret.length < 32) {
      throw new BackendError({
        code: 'LINK_FAILED',
        message: `lead link ${socketPath}: the secret for ${agentId} must be a string of at least 32 characters (use the one memberEnvironment makes)`,
      });
    }
    const digest = secretDigest(secret);
    expected.set(agentId, digest);
    return () => {
      if (expected.get(agentId) === digest) expected.delete(agentId);
    };
  };

  const settleWaiters = (agentId: string, outcome: 'ready' | BackendError): void => {
    for (const waiter of [...waiters]) {
      if (waiter.agentId !== agentId) continue;
      if (outcome === 'ready') waiter.resolve();
      else waiter.reject(outcome);
    }
  };

  const handleConnection = (socket: Socket): void => {
    socket.unref();
    const connection: Connection = { socket, ready: false };
    connections.add(connection);
    const helloTimer = setTimeout(() => {
      log(
        `lead link ${socketPath}: a connection said no hello within ${HELLO_TIMEOUT_MS} ms; closed`,
      );
      socket.destroy();
    }, HELLO_TIMEOUT_MS);
    helloTimer.unref();
    const refuse = (reason: string): void => {
      log(`lead link ${socketPath}: ${reason}; connection closed`);
      socket.end(`${JSON.stringify({ type: 'refused', reason })}\n`);
      setTimeout(() => socket.destroy(), 1_000).unref();
    };
    const feed = lineSplitter(
      (line) => {
        const message = parseMemberMessage(line);
        if (typeof message === 'string') return refuse(message);
        if (message.type === 'hello') {
          if (connection.agentId !== undefined)
            return refuse(`a second hello on the connection of ${connection.agentId}`);
          if (byAgent.has(message.agentId)) {
            return refuse(
              `${message.agentId} (pid ${message.pid}) said hello but ${message.agentId} is already connected`,
            );
          }
          const digest = expected.get(message.agentId);
          if (digest === undefined) {
            return refuse(
              `${message.agentId} (pid ${message.pid}) said hello but no member ${message.agentId} is expected (not started by this lead, or its secret was already used)`,
            );
          }
          if (message.secret === undefined) {
            return refuse(
              `${message.agentId} (pid ${message.pid}) said hello without the member secret (${MEMBER_SECRET_VARIABLE})`,
            );
          }
          if (!secretMatches(digest, message.secret)) {
            return refuse(
              `${message.agentId} (pid ${message.pid}) said hello with a wrong member secret`,
            );
          }
          // One hello per secret: a copy of it replayed later is refused.
          expected.delete(message.agentId);
          clearTimeout(helloTimer);
          connection.agentId = message.agentId;
          byAgent.set(message.agentId, connection);
          return;
        }
        if (connection.agentId === undefined) return refuse('ready before hello');
        if (connection.ready) return;
        connection.ready = true;
        settleWaiters(connection.agentId, 'ready');
      },
      () => refuse(`a line longer than the limit`),
    );
    socket.on('data', feed);
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      clearTimeout(helloTimer);
      connections.delete(connection);
      const { agentId } = connection;
      if (agentId === undefined || byAgent.get(agentId) !== connection) return;
      byAgent.delete(agentId);
      if (!connection.ready)
        settleWaiters(
          agentId,
          notReady(agentId, 'its lead link connection closed before it said ready'),
        );
      for (const listener of [...disconnectListeners]) {
        try {
          listener(agentId);
        } catch (error) {
          log(`lead link ${socketPath}: a disconnect listener threw: ${String(error)}`);
        }
      }
    });
  };

  const server: Server = createServer(handleConnection);
  await new Promise<void>((resolve, reject) => {
    const onError = (error: Error): void => {
      releaseLeadSocketLocation(location);
      reject(
        new BackendError({
          code: 'LINK_FAILED',
          message: `Could not listen on the lead link socket ${socketPath}: ${error.message}. Check that the folder is writable and on a file system that supports Unix sockets.`,
          details: { socketPath },
          cause: error,
        }),
      );
    };
    server.once('error', onError);
    server.listen(socketPath, () => {
      server.off('error', onError);
      resolve();
    });
  });
  chmodSync(socketPath, 0o600);
  server.unref();

  return {
    socketPath,
    waitForReady(agentId, { timeoutMs, signal }) {
      if (byAgent.get(agentId)?.ready === true) return Promise.resolve();
      if (closed) return Promise.reject(notReady(agentId, 'the lead link is closed'));
      if (signal?.aborted === true) return Promise.reject(notReady(agentId, 'waiting was aborted'));
      return new Promise<void>((resolve, reject) => {
        const finish = (): void => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          waiters.delete(waiter);
        };
        const waiter: Waiter = {
          agentId,
          resolve: () => {
            finish();
            resolve();
          },
          reject: (error) => {
            finish();
            reject(error);
          },
        };
        const onAbort = (): void => waiter.reject(notReady(agentId, 'waiting was aborted'));
        const timer = setTimeout(
          () =>
            waiter.reject(
              notReady(agentId, `it did not say ready over the lead link within ${timeoutMs} ms`),
            ),
          timeoutMs,
        );
        signal?.addEventListener('abort', onAbort, { once: true });
        waiters.add(waiter);
      });
    },
    memberEnvironment(agentId) {
      const secret = createMemberSecret();
      expectMember(agentId, secret);
      return {
        [LEAD_SOCKET_VARIABLE]: socketPath,
        [AGENT_ID_VARIABLE]: agentId,
        [MEMBER_SECRET_VARIABLE]: secret,
      };
    },
    expectMember,
    isConnected: (agentId) => byAgent.has(agentId),
    isReady: (agentId) => byAgent.get(agentId)?.ready === true,
    onDisconnect(listener) {
      disconnectListeners.add(listener);
      return () => disconnectListeners.delete(listener);
    },
    async close() {
      if (closed) return;
      closed = true;
      expected.clear();
      for (const waiter of [...waiters])
        waiter.reject(notReady(waiter.agentId, 'the lead link closed'));
      const serverClosed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const connection of connections) connection.socket.destroy();
      await serverClosed;
      rmSync(socketPath, { force: true });
      releaseLeadSocketLocation(location);
    },
  };
}
