// The pty backend: each member runs on its own pseudo-terminal (node-pty), opened by one
// helper process per backend (R23), with its screen kept in a headless xterm and its output in
// a log file. node-pty is an optional native dependency loaded only when needed, so a machine
// without a C toolchain gets "unavailable" with the fix instead of a crash at import (R26).
import { createWriteStream, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { createRootLayout } from '@muster/protocol';
import { BackendError } from './backend-error.js';
import { leadRunMarkerEnvironment } from './process-reaper-marker.js';
import type { Backend, BackendAvailability, MemberSpec } from './backend-types.js';
import { AGENT_ID_VARIABLE } from './lead-link-messages.js';
import type { LeadLink } from './lead-link.js';
import { acquireLeadLink } from './lead-link-shared.js';
import { registerCleanup } from './cleanup-registry.js';
import { deathSignalPrefix, readProcessIdentity } from './process-control.js';
import {
  ptyMemberEnvironment,
  resolveExecutable,
  scrubbedLeadEnvironment,
} from './pty-environment.js';
import { startPtyHost, type PtyHost } from './pty-host-client.js';
import { createPtyMember, type PtyMemberHandle } from './pty-member.js';
import { checkPtySpec } from './pty-spec.js';
import { createTerminalScreen, DEFAULT_TERMINAL_SIZE } from './terminal-screen.js';

/** Options of {@link createPtyBackend}. */
export interface PtyBackendOptions {
  /** Where each member's output is logged (`<agent>.log`); default `<team folder>/.muster/pty-logs`. */
  logDirectory?: string;
  /**
   * Loads node-pty to check it works (default `import('node-pty')`). Tests pass a failing
   * loader to see the "unavailable" path without uninstalling anything.
   */
  loadPty?: () => Promise<unknown>;
  /**
   * The lead link members connect back to; default the team folder's shared link
   * (`acquireLeadLink`), whose reference `close()` gives back.
   */
  leadLink?: LeadLink;
  /** The lead's environment members start from (default `process.env`; credentials are removed). */
  environment?: Readonly<Record<string, string | undefined>>;
  /** Terminal size of new members (default 120×40). */
  columns?: number;
  rows?: number;
}

/** The pty backend: its members are {@link PtyMemberHandle}s. */
export interface PtyBackend extends Backend {
  spawn(spec: MemberSpec): Promise<PtyMemberHandle>;
}

const NODE_PTY_FIX =
  'install a C toolchain (make, g++ and python3), then reinstall (pnpm install) so node-pty compiles';

function fileNameOf(agentName: string): string {
  return agentName.replace(/[^A-Za-z0-9._-]/g, '-');
}

/** Creates a pty backend. Nothing starts until the first `spawn`. */
export function createPtyBackend(options: PtyBackendOptions = {}): PtyBackend {
  const loadPty = options.loadPty ?? (() => import('node-pty'));
  const leadEnvironment = options.environment ?? process.env;
  const columns = options.columns ?? DEFAULT_TERMINAL_SIZE.columns;
  const rows = options.rows ?? DEFAULT_TERMINAL_SIZE.rows;
  let availability: Promise<BackendAvailability> | undefined;
  let host: Promise<PtyHost> | undefined;
  const ownLinks = new Map<string, Promise<LeadLink>>();
  const members = new Set<PtyMemberHandle>();
  let closed = false;
  let unregisterCleanup: (() => void) | undefined;
  const runningHostPids = new Set<number>();

  /** The last pass in `'exit'`: only sync calls, so SIGKILL for every live member and the host. */
  function endEverythingNow(): void {
    for (const member of members) {
      const pid = member.describe().pid;
      // isAlive() re-checks the pid's start time: a reused pid is never signalled.
      if (pid !== undefined && member.isAlive()) {
        try {
          process.kill(-pid, 'SIGKILL');
        } catch {
          // Gone meanwhile.
        }
      }
    }
    // The hosts are this process's own children, not reaped yet: their pids are still theirs.
    for (const pid of runningHostPids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone meanwhile.
      }
    }
  }

  function checkAvailability(): Promise<BackendAvailability> {
    availability ??= (async (): Promise<BackendAvailability> => {
      if (process.platform === 'win32') {
        return {
          available: false,
          reason: 'the pty backend supports Linux and macOS only',
          fix: 'use the in-process backend on Windows',
        };
      }
      try {
        await loadPty();
      } catch (error) {
        return {
          available: false,
          reason: `node-pty is not built (${error instanceof Error ? error.message : String(error)})`,
          fix: NODE_PTY_FIX,
        };
      }
      return {
        available: true,
        notes: ['PTYs are opened by a helper process so the lead never holds a PTY master'],
      };
    })();
    return availability;
  }

  function leadLinkFor(spec: MemberSpec): Promise<LeadLink> {
    if (options.leadLink !== undefined) return Promise.resolve(options.leadLink);
    const teamFolder = createRootLayout(spec.root).teamDirectory(spec.teamName);
    let link = ownLinks.get(teamFolder);
    if (link === undefined) {
      link = acquireLeadLink({ teamFolder });
      ownLinks.set(teamFolder, link);
      link.catch(() => ownLinks.delete(teamFolder));
    }
    return link;
  }

  function hostFor(): Promise<PtyHost> {
    if (host === undefined) {
      const starting = startPtyHost({
        environment: scrubbedLeadEnvironment(leadEnvironment),
      });
      host = starting;
      starting.then(
        (started) => {
          runningHostPids.add(started.pid);
          // The lead's SIGINT/SIGTERM/SIGHUP or crash closes the backend (R32).
          unregisterCleanup ??= registerCleanup('pty backend', close, { sync: endEverythingNow });
          started.onEnd(() => {
            runningHostPids.delete(started.pid);
            if (host === starting) host = undefined;
          });
        },
        () => {
          if (host === starting) host = undefined;
        },
      );
    }
    return host;
  }

  function checkOpen(what: string): void {
    if (closed) {
      throw new BackendError({
        code: 'CLOSED',
        message: `pty backend: ${what} after close(); create a new backend`,
      });
    }
  }

  async function spawn(spec: MemberSpec): Promise<PtyMemberHandle> {
    checkOpen(`spawn of ${String(spec?.agentId)}`);
    checkPtySpec(spec);
    if (!statSync(spec.cwd, { throwIfNoEntry: false })?.isDirectory()) {
      throw new BackendError({
        code: 'SPAWN_FAILED',
        message: `pty backend: cannot start member ${spec.agentId}: its cwd ${spec.cwd} is not a folder; create it or fix spec.cwd`,
      });
    }
    const available = await checkAvailability();
    if (!available.available) {
      throw new BackendError({
        code: 'UNAVAILABLE',
        message: `pty backend is unavailable: ${available.reason}; ${available.fix}`,
      });
    }
    const readiness = spec.readiness ?? 'connect-back';
    const leadLink = readiness === 'connect-back' ? await leadLinkFor(spec) : undefined;
    // Socket, agent id and the secret made for this member alone (the link expects it now).
    const linkVariables: Record<string, string> =
      leadLink === undefined
        ? { [AGENT_ID_VARIABLE]: spec.agentId }
        : leadLink.memberEnvironment(spec.agentId);
    const environment = ptyMemberEnvironment(spec, leadEnvironment, {
      ...(await leadRunMarkerEnvironment('pty', spec.agentId)),
      ...linkVariables,
    });
    const command = spec.command as { file: string; args: readonly string[] };
    const executable = resolveExecutable(command.file, spec.cwd, environment, spec.agentId);
    const ptyHost = await hostFor();
    checkOpen(`spawn of ${spec.agentId}`);

    const logDirectory =
      options.logDirectory ??
      path.join(createRootLayout(spec.root).sidecarDirectory(spec.teamName), 'pty-logs');
    mkdirSync(logDirectory, { recursive: true });
    const logFile = path.join(logDirectory, `${fileNameOf(spec.agentName)}.log`);
    const log = createWriteStream(logFile, { flags: 'a' });
    // A full disk must not end the lead: the member keeps running and its screen stays readable.
    log.on('error', () => undefined);
    const screen = createTerminalScreen({ columns, rows });
    // The host is the member's parent: the kernel kills the member if the host dies.
    // `setpriv` is found on the lead's PATH: the member's PATH may not have it.
    const [prefixProgram, ...prefixArguments] = deathSignalPrefix();
    const prefix =
      prefixProgram === undefined
        ? []
        : [
            resolveExecutable(
              prefixProgram,
              spec.cwd,
              scrubbedLeadEnvironment(leadEnvironment),
              spec.agentId,
            ),
            ...prefixArguments,
          ];
    const argv = [...prefix, executable, ...command.args];

    let handle: PtyMemberHandle | undefined;
    let ended = false;
    try {
      handle = await createPtyMember(
        {
          spec,
          host: ptyHost,
          logFile,
          log,
          screen,
          leadLink,
          onEnded: () => {
            ended = true;
            if (handle !== undefined) members.delete(handle);
          },
        },
        async (listener) => {
          const { id, pid } = await ptyHost.spawn(
            {
              file: argv[0] as string,
              args: argv.slice(1),
              cwd: spec.cwd,
              environment,
              columns,
              rows,
            },
            listener,
          );
          return { id, pid, identity: readProcessIdentity(pid) };
        },
      );
    } catch (error) {
      log.end();
      screen.dispose();
      throw new BackendError({
        code: 'SPAWN_FAILED',
        message: `pty backend: cannot start member ${spec.agentId} (${executable}): ${(error as Error).message}`,
        cause: error,
      });
    }
    if (closed) {
      // close() ran while this member was starting: it did not see it, so end it here.
      await handle.kill({ graceful: false });
      checkOpen(`spawn of ${spec.agentId}`);
    }
    if (!ended) members.add(handle);
    return handle;
  }

  async function close(): Promise<void> {
    if (closed) return;
    closed = true;
    await Promise.allSettled(
      [...members].map((member) => member.kill({ graceful: true, deadlineMs: 2_000 })),
    );
    const started = host;
    host = undefined;
    await started?.then((running) => running.close()).catch(() => undefined);
    const links = [...ownLinks.values()];
    ownLinks.clear();
    await Promise.allSettled(links.map((link) => link.then((open) => open.close())));
    unregisterCleanup?.();
  }

  return { name: 'pty', availability: checkAvailability, spawn, close };
}
