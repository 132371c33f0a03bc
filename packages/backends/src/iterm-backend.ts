// The iTerm2 backend (macOS): members run in iTerm2 split panes made through the `it2` CLI.
// Detection asks the Python API itself (`it2 session list`), since `it2 --version` answers
// even when the API is off. The first member splits vertically from the lead's session, the
// next ones horizontally from the last member (seed 003); a split that fails on a session
// that `session list` no longer shows prunes that session and retries from the one before,
// then from the lead (at most members + 1 attempts); a split that fails on a session still
// listed is an error, never a guess. `it2 session run` types one line into the new pane's
// shell: `/bin/sh '<launch script>'`, and the script runs the member's argv unparsed.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BackendError } from './backend-error.js';
import { leadRunMarkerEnvironment } from './process-reaper-marker.js';
import type { Backend, BackendAvailability, MemberHandle, MemberSpec } from './backend-types.js';
import {
  firstLine,
  launchScript,
  leaderSessionIdFrom,
  looksLikeApiDisabled,
  parseCreatedPaneId,
  runIt2,
  sessionListed,
  shellQuote,
  type It2Result,
} from './iterm-cli.js';
import { registerCleanup } from './cleanup-registry.js';
import { ITermMemberHandle } from './iterm-member.js';
import { acquireLeadLink } from './lead-link-shared.js';
import { checkITermSpec, ITERM_INSTALL_FIX, type ITermLeadLink } from './iterm-support.js';

/** Options of {@link createITermBackend}. */
export interface ITermBackendOptions {
  /** The `it2` program (default `it2`, found on the PATH of `environment`). */
  it2Path?: string;
  /** The lead's environment (default `process.env`): `ITERM_SESSION_ID`, `TERM_PROGRAM`, `PATH` for `it2`. */
  environment?: Readonly<Record<string, string | undefined>>;
  /** The lead link members connect back to; by default one is opened per team folder. */
  leadLink?: ITermLeadLink;
  /** Opens a lead link for a team folder (default: the lead's shared link, `acquireLeadLink`). */
  openLeadLink?: (teamFolder: string) => Promise<ITermLeadLink>;
  /** How often members' panes and exit files are reconciled, in ms (default 1 000). */
  pollIntervalMs?: number;
  /** Deadline of one `it2` call, in ms (default 10 000). */
  it2TimeoutMs?: number;
  /**
   * Where the backend makes its private folder (mode 0700) for launch scripts and their pid and
   * exit files; default the system temp folder. The folder is removed on `close()`.
   */
  scriptDirectory?: string;
}

/** The iTerm2 backend, with its members (for tests and `muster doctor`). */
export interface ITermBackend extends Backend {
  /** Member session ids in split order (the last one is the next split's source). */
  memberSessions(): string[];
}

/** Creates the iTerm2 backend; see the file comment for how it splits, runs and recovers. */
export function createITermBackend(options: ITermBackendOptions = {}): ITermBackend {
  const it2Path = options.it2Path ?? 'it2';
  const environment = { ...(options.environment ?? process.env) } as NodeJS.ProcessEnv;
  const timeoutMs = options.it2TimeoutMs ?? 10_000;
  const pollIntervalMs = options.pollIntervalMs ?? 1_000;
  const it2 = (args: readonly string[]) => runIt2(it2Path, args, { environment, timeoutMs });
  let leaderSessionId = leaderSessionIdFrom(environment);
  const tracked: string[] = [];
  const members = new Map<string, ITermMemberHandle>();
  const links = new Map<string, Promise<ITermLeadLink>>();
  let chain: Promise<unknown> = Promise.resolve();
  let scratch: string | undefined;
  let poller: NodeJS.Timeout | undefined;
  let reconciling = false;
  let closed = false;
  let unregisterCleanup: (() => void) | undefined;

  const linkFor = (teamFolder: string): Promise<ITermLeadLink> => {
    if (options.leadLink !== undefined) return Promise.resolve(options.leadLink);
    let link = links.get(teamFolder);
    if (link === undefined) {
      const open = options.openLeadLink ?? defaultOpenLeadLink;
      link = open(teamFolder);
      links.set(teamFolder, link);
      link.catch(() => links.delete(teamFolder));
    }
    return link;
  };

  const closeSession = async (sessionId: string) => {
    const index = tracked.indexOf(sessionId);
    if (index !== -1) tracked.splice(index, 1);
    await it2(['session', 'close', '-f', '-s', sessionId]);
  };

  const reconcile = async () => {
    if (reconciling || members.size === 0) return;
    reconciling = true;
    try {
      // Only members whose pane existed before the listing was asked for can be judged by it.
      const known = [...members.values()];
      const listing = await it2(['session', 'list']);
      for (const member of known) {
        const listed =
          listing.code === 0 ? sessionListed(listing.stdout, member.sessionId) : undefined;
        const exit = member.reconcile(listed);
        if (exit === undefined) continue;
        members.delete(member.spec.agentId);
        if (exit.code === 0 || listed === false) await closeSession(member.sessionId);
      }
    } finally {
      reconciling = false;
      if (members.size === 0 && poller !== undefined) {
        clearInterval(poller);
        poller = undefined;
      }
    }
  };

  /** One split, with dead-session recovery (seed 003): at most tracked + 1 attempts. */
  const split = async (agentId: string): Promise<string> => {
    // Every member's session, then the lead's, then the active session: members + 2 at most.
    const attempts = tracked.length + 2;
    const failures: string[] = [];
    for (let attempt = 0; attempt < attempts; attempt += 1) {
      const source = tracked.at(-1) ?? leaderSessionId;
      const direction = tracked.length === 0 ? '-v' : '-h';
      const result = await it2(['session', 'split', direction, ...(source ? ['-s', source] : [])]);
      const created = result.code === 0 ? parseCreatedPaneId(result.stdout) : undefined;
      if (created !== undefined) return created;
      failures.push(`${source ?? 'active session'}: ${firstLine(result)}`);
      if (result.missing)
        throw unavailable(`the it2 CLI could not be started (${firstLine(result)})`);
      if (source === undefined || result.code === 0) break;
      const listing = await it2(['session', 'list']);
      if (listing.code !== 0 || sessionListed(listing.stdout, source)) break; // alive: never guess
      if (source === leaderSessionId) leaderSessionId = undefined;
      else tracked.splice(tracked.indexOf(source), 1);
    }
    throw new BackendError({
      code: 'SPAWN_FAILED',
      message: `Could not make an iTerm2 pane for ${agentId}: ${failures.join('; ')}. Check that iTerm2 is running with its Python API enabled, and close panes muster no longer uses.`,
      details: { failures },
    });
  };

  const spawnNow = async (spec: MemberSpec): Promise<MemberHandle> => {
    if (closed) throw closedError(spec.agentId);
    if (members.has(spec.agentId)) {
      throw new BackendError({
        code: 'INVALID_SPEC',
        message: `${spec.agentId} already runs in iTerm2 session ${members.get(spec.agentId)?.sessionId}; kill it first or use another name.`,
      });
    }
    const connectBack = (spec.readiness ?? 'connect-back') === 'connect-back';
    const link = connectBack
      ? await linkFor(path.join(spec.root, 'teams', spec.teamName))
      : undefined;
    scratch ??= mkdtempSync(path.join(options.scriptDirectory ?? tmpdir(), 'muster-iterm-'));
    const base = path.join(scratch, `${spec.agentName}-${randomUUID().slice(0, 8)}`);
    const files = { script: `${base}.sh`, pidFile: `${base}.pid`, exitFile: `${base}.exit` };
    // The link variables last: the spec cannot override the socket, agent id or secret.
    const memberEnvironment: Record<string, string> = {
      ...(await leadRunMarkerEnvironment('iTerm2', spec.agentId)),
      ...spec.environment,
      ...(link === undefined ? {} : link.memberEnvironment(spec.agentId)),
    };
    writeFileSync(
      files.script,
      launchScript({
        agentId: spec.agentId,
        cwd: spec.cwd,
        environment: memberEnvironment,
        argv: [spec.command!.file, ...spec.command!.args],
        pidFile: files.pidFile,
        exitFile: files.exitFile,
      }),
      { mode: 0o700 },
    );
    const sessionId = await split(spec.agentId);
    tracked.push(sessionId);
    // A leading space keeps the line out of most shells' history.
    const typed = await it2([
      'session',
      'run',
      '-s',
      sessionId,
      ` /bin/sh ${shellQuote(files.script)}`,
    ]);
    if (typed.code !== 0) {
      await closeSession(sessionId);
      throw new BackendError({
        code: 'SPAWN_FAILED',
        message: `iTerm2 made session ${sessionId} for ${spec.agentId} but it2 session run failed (${firstLine(typed)}); the pane was closed.`,
      });
    }
    const handle = new ITermMemberHandle({
      spec,
      sessionId,
      ...files,
      closeSession: () => closeSession(sessionId),
      ...(link === undefined
        ? {}
        : {
            waitForReady: (readyTimeoutMs, signal) =>
              link.waitForReady(spec.agentId, { timeoutMs: readyTimeoutMs, signal }),
          }),
    });
    members.set(spec.agentId, handle);
    // R32: the lead's signal and crash handlers end every member (async: kill and close the
    // panes; sync last pass in 'exit': SIGKILL each member's group).
    unregisterCleanup ??= registerCleanup('iTerm2 members', () => backend.close(), {
      sync: () => {
        for (const member of members.values()) member.killNow();
      },
    });
    void handle.exited.then(() => {
      if (members.get(spec.agentId) === handle) members.delete(spec.agentId);
    });
    poller ??= setInterval(() => void reconcile().catch(() => {}), pollIntervalMs);
    poller.unref();
    return handle;
  };

  const backend: ITermBackend = {
    name: 'iterm2',
    memberSessions: () => [...tracked],
    async availability(): Promise<BackendAvailability> {
      if (environment.TERM_PROGRAM !== 'iTerm.app' && leaderSessionId === undefined) {
        return {
          available: false,
          reason: `the lead is not running inside iTerm2 (TERM_PROGRAM is ${JSON.stringify(environment.TERM_PROGRAM ?? '')} and ITERM_SESSION_ID is not set)`,
          fix: 'Start the lead from an iTerm2 window, or choose another backend (tmux).',
        };
      }
      const listing: It2Result = await it2(['session', 'list']);
      if (listing.missing) {
        return {
          available: false,
          reason: `the it2 CLI is not on the PATH (${it2Path})`,
          fix: ITERM_INSTALL_FIX,
        };
      }
      if (listing.code !== 0) {
        return {
          available: false,
          reason: `it2 session list failed: ${looksLikeApiDisabled(listing) ? 'the iTerm2 Python API did not answer' : 'iTerm2 did not answer'} (${firstLine(listing)})`,
          fix: 'Enable it in iTerm2 → Settings → General → Magic → Enable Python API, and allow muster when iTerm2 asks; check that iTerm2 is running.',
        };
      }
      const notes =
        leaderSessionId !== undefined && !sessionListed(listing.stdout, leaderSessionId)
          ? [
              `the lead's session ${leaderSessionId} is not in it2 session list; the first member will split the active session`,
            ]
          : [];
      return { available: true, notes };
    },
    spawn(spec) {
      try {
        checkITermSpec(spec);
      } catch (error) {
        return Promise.reject(error);
      }
      const result = chain.then(() => spawnNow(spec));
      chain = result.catch(() => {});
      return result;
    },
    async close() {
      closed = true;
      if (poller !== undefined) clearInterval(poller);
      poller = undefined;
      await chain;
      await Promise.allSettled(
        [...members.values()].map((member) => member.kill({ deadlineMs: 2_000 })),
      );
      members.clear();
      const opened = [...links.values()];
      links.clear();
      await Promise.allSettled(opened.map(async (link) => (await link).close()));
      if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
      scratch = undefined;
      unregisterCleanup?.();
      unregisterCleanup = undefined;
    },
  };
  return backend;
}

/** The lead link shared by every backend of this lead for the team folder (one `.lead.sock`). */
function defaultOpenLeadLink(teamFolder: string): Promise<ITermLeadLink> {
  return acquireLeadLink({ teamFolder });
}

function unavailable(reason: string): BackendError {
  return new BackendError({
    code: 'UNAVAILABLE',
    message: `iTerm2 cannot be used: ${reason}. ${ITERM_INSTALL_FIX}`,
  });
}

function closedError(agentId: string): BackendError {
  return new BackendError({
    code: 'CLOSED',
    message: `The iTerm2 backend is closed; ${agentId} was not started. Create a new backend.`,
  });
}
