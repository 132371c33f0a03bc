// The tmux backend: each member is the process of its own tmux pane, started by tmux itself
// from an argv (R18), in the lead's window when the lead runs inside tmux, else on a private
// server `-L muster-<team>` that dies with the lead (R21). Spawns are serialized and the
// layout re-applied (R20); failed panes are kept and reported (R19); a reconciler compares the
// server's pane list with the members by exact pane id at least once a second (R22); every
// kill re-verifies the pane's identity (R16).
import { join } from 'node:path';
import { isModelCredentialVariable } from '@muster/protocol';
import { BackendError } from './backend-error.js';
import { leadRunMarkerEnvironment } from './process-reaper-marker.js';
import type { Backend, MemberSpec } from './backend-types.js';
import { registerCleanup } from './cleanup-registry.js';
import { TmuxPlacement, type TmuxPaneSize } from './tmux-layout.js';
import { readProcessStat } from '@muster/file-lock';
import {
  PANE_STATE_FORMAT,
  parsePaneStates,
  socketLabelFor,
  TmuxMemberHandle,
} from './tmux-member.js';
import { TmuxCommandError, TmuxRunner } from './tmux-runner.js';
import {
  readServerIdentity,
  startPrivateTmuxServer,
  type PrivateTmuxServer,
  type TmuxServerIdentity,
} from './tmux-server.js';
import { credentialRemovalPrefix, prepareTmuxLaunch, tmuxColor } from './tmux-spec.js';
import { TmuxSpawnSupport, type TmuxLeadLink } from './tmux-support.js';
import { decideMode, privateSocketName, tmuxAvailability } from './tmux-mode.js';
import { guardedKillPane } from './tmux-identity.js';
import { TmuxServerCommands } from './tmux-server-commands.js';

/** Options of {@link createTmuxBackend}. */
export interface TmuxBackendOptions {
  /**
   * Private server socket name (`-L`, default `muster-<team>`); with `leadPane`, the server
   * that holds the lead's pane.
   */
  socketName?: string;
  /** The lead's pane (`%N`): members split its window. Default `TMUX_PANE` when `TMUX` is set. */
  leadPane?: string;
  /** The environment that says whether the lead runs inside tmux (`TMUX`, `TMUX_PANE`); default `process.env`, read once now. */
  environment?: NodeJS.ProcessEnv;
  /** The tmux program (default `tmux` on PATH). */
  tmuxPath?: string;
  /** Configuration file of the private server (default `/dev/null`). */
  configFile?: string;
  /** How often the pane list is reconciled with the members (default 500 ms, at most 1 000). */
  pollIntervalMs?: number;
  /** Smallest member pane before a new window opens (default 20 columns × 4 rows). */
  minimumPaneSize?: TmuxPaneSize;
  /** Size of the private server's windows while nobody is attached (default 200×50). */
  sessionSize?: TmuxPaneSize;
  /**
   * Inside tmux, the lead pane's share of its window's width in percent (default 30, as Claude
   * Code's); a lead that draws the whole team (muster run's app) wants more.
   */
  leadPercent?: number;
  /** Argv prefix that ends the private server with the lead (default: `setpriv --pdeathsig KILL --` when available). */
  deathSignalPrefix?: readonly string[];
  /** The lead link members connect back to (default: one per team folder, opened by the backend). */
  leadLink?: TmuxLeadLink;
  /** Told every notice (a member opened in a new window, where the private server is). */
  onNotice?: (notice: string) => void;
}

/**
 * Creates the tmux backend. Inside tmux (`TMUX` set, or `leadPane` given) members split the
 * lead's window; outside, they run on a private server `tmux -L muster-<team>` started at the
 * first spawn and ended by `close()` (or with the lead, through the death-signal prefix).
 */
export function createTmuxBackend(options: TmuxBackendOptions = {}): Backend {
  const { leadPercent } = options;
  if (
    leadPercent !== undefined &&
    (typeof leadPercent !== 'number' || !(leadPercent >= 10 && leadPercent <= 90))
  ) {
    throw new BackendError({
      code: 'INVALID_SPEC',
      message: `createTmuxBackend: leadPercent must be a number from 10 to 90 (the lead pane's share of its window's width), not ${JSON.stringify(leadPercent)}.`,
    });
  }
  const tmuxPath = options.tmuxPath ?? 'tmux';
  const mode = decideMode(options);
  const pollIntervalMs = Math.min(Math.max(options.pollIntervalMs ?? 500, 50), 1_000);
  const members = new Set<TmuxMemberHandle>();
  const support = new TmuxSpawnSupport(options.leadLink);
  let queue: Promise<unknown> = Promise.resolve();
  let closed = false;
  let server:
    | {
        runner: TmuxRunner;
        /** The server's commands: its control-mode client when open (private server), else client processes. */
        commands: TmuxServerCommands;
        identity: TmuxServerIdentity;
        private?: PrivateTmuxServer;
        teamName?: string;
      }
    | undefined;
  let placement: TmuxPlacement | undefined;
  let serverEnvironment: string[] | undefined;
  let poller: NodeJS.Timeout | undefined;
  let reconciling = false;
  let unregisterCleanup: (() => void) | undefined;

  const notice = (text: string): void => options.onNotice?.(text);
  let controlProblemTold = false;
  const controlProblem = (text: string): void => {
    if (controlProblemTold) return;
    controlProblemTold = true;
    notice(text);
  };
  const serialized = <T>(work: () => Promise<T>): Promise<T> => {
    const result = queue.then(work, work);
    queue = result.catch(() => undefined);
    return result;
  };

  const ensureServer = async (spec: MemberSpec): Promise<NonNullable<typeof server>> => {
    // A private server ends by itself once its last pane is gone (exit-empty), or is ended
    // from outside (`kill-server`): its process may still be exiting, so wait for that, then
    // start anew.
    await server?.commands.ready();
    if (server?.private !== undefined && !(await server.commands.answers(server.private))) {
      await server.commands.close();
      if (!(await server.private.waitForExit(3_000))) {
        // Never forget a server that still runs: close() must still end it.
        throw new BackendError({
          code: 'SPAWN_FAILED',
          message: `tmux backend: the private server (pid ${server.private.identity.serverPid}) no longer answers as itself but has not exited within 3 s, so ${spec.agentId} was not spawned; try again, or close the backend (which ends that server).`,
          details: { agentId: spec.agentId },
        });
      }
      server = undefined;
      placement = undefined;
    }
    if (server !== undefined) {
      if (
        server.private !== undefined &&
        server.teamName !== spec.teamName &&
        options.socketName === undefined
      ) {
        throw new BackendError({
          code: 'INVALID_SPEC',
          message: `This tmux backend runs team ${String(server.teamName)} on its private server; ${spec.agentId} belongs to team ${spec.teamName}. Create one tmux backend per team.`,
        });
      }
      return server;
    }
    if (mode.kind === 'inside') {
      const runner = new TmuxRunner(tmuxPath, mode.address);
      const identity = await readServerIdentity(runner).catch((error: unknown) => {
        throw new BackendError({
          code: 'SPAWN_FAILED',
          message: `The lead's tmux server (${socketLabelFor(runner)}) does not answer: ${String(error)}. Start the lead inside tmux, or unset TMUX to use a private server.`,
          cause: error,
        });
      });
      const commands = new TmuxServerCommands(runner, identity.serverPid, controlProblem);
      server = { runner, commands, identity };
      placement = new TmuxPlacement(commands, {
        leadPaneId: mode.leadPane,
        sessionName: 'muster',
        ...layoutOptions(options),
      });
      serverEnvironment = (await runner.run(['show-environment', '-g']).catch(() => '')).split(
        '\n',
      );
      return server;
    }
    const socketName = mode.socketName ?? privateSocketName(spec.teamName);
    const environment = { ...process.env };
    delete environment.TMUX;
    delete environment.TMUX_PANE;
    for (const name of Object.keys(environment)) {
      if (isModelCredentialVariable(name)) delete environment[name];
    }
    const started = await startPrivateTmuxServer({
      tmuxPath,
      socketName,
      configFile: options.configFile ?? '/dev/null',
      deathSignalPrefix: options.deathSignalPrefix ?? (await support.deathSignalPrefix()),
      environment,
    });
    const commands = new TmuxServerCommands(
      started.runner,
      started.identity.serverPid,
      controlProblem,
    );
    server = {
      runner: started.runner,
      commands,
      identity: started.identity,
      private: started,
      teamName: spec.teamName,
    };
    placement = new TmuxPlacement(commands, {
      sessionName: spec.teamName.replace(/[^\w-]/g, '-'),
      ...layoutOptions(options),
    });
    serverEnvironment = [];
    notice(
      `tmux members of team ${spec.teamName} run on a private server; watch them with \`${started.attachCommand}\`.`,
    );
    return server;
  };

  const relayout = (windowId: string): void => {
    void serialized(async () => placement?.relayout(windowId)).catch(() => undefined);
  };

  const reconcile = async (): Promise<void> => {
    // The server this round reads: a spawn may replace `server` while a call is awaited.
    const current = server;
    if (reconciling || current === undefined) return;
    reconciling = true;
    try {
      let panes;
      let why: string | undefined;
      try {
        panes = parsePaneStates(
          await current.commands.run(['list-panes', '-a', '-F', PANE_STATE_FORMAT]),
        );
      } catch (error) {
        if (error instanceof TmuxCommandError && error.noPanes) panes = new Map();
        else if (error instanceof TmuxCommandError && error.serverMissing) {
          why = `its tmux server (${current.identity.socketPath}) is gone`;
        } else return;
      }
      for (const member of [...members]) {
        // A member of a server started while this round read the old one waits for the next round.
        const newer =
          server !== current && member.identity.serverPid === server?.identity.serverPid;
        if (!newer && member.reconcile(panes, why)) {
          // A clean exit closes its pane (R19): remain-on-exit kept it so its status could be read.
          await current.commands.run(guardedKillPane(member.identity)).catch(() => undefined);
        }
      }
    } finally {
      reconciling = false;
    }
  };

  // While members run, the reconciler keeps the lead's event loop alive (as running child
  // processes do), so a lead that only awaits `exited` still learns of the exit.
  const startPolling = (): void => {
    poller ??= setInterval(() => void reconcile(), pollIntervalMs);
  };
  const stopPollingWhenIdle = (): void => {
    if (members.size > 0) return;
    clearInterval(poller);
    poller = undefined;
  };

  const spawnNow = async (spec: MemberSpec): Promise<TmuxMemberHandle> => {
    if (closed) throw closedError(spec);
    let current = await ensureServer(spec);
    const readiness = spec.readiness ?? 'connect-back';
    const link =
      readiness === 'connect-back'
        ? await support.linkFor(join(spec.root, 'teams', spec.teamName))
        : undefined;
    const linkEnvironment: Record<string, string> =
      link === undefined ? {} : link.memberEnvironment(spec.agentId);
    const launch = prepareTmuxLaunch(spec, {
      ...(await leadRunMarkerEnvironment('tmux', spec.agentId)),
      ...linkEnvironment,
    });
    const prefix = credentialRemovalPrefix(spec, serverEnvironment ?? []);
    let created;
    try {
      created = await (placement as TmuxPlacement).createPane(['cat'], spec.agentName);
    } catch (error) {
      // The private server ended (its last pane gone) between the check and the split: its
      // control-mode client ended with it, or tmux said no server runs. Start anew once.
      if (current.private === undefined || !current.commands.isServerGoneError(error)) throw error;
      current = await ensureServer(spec);
      created = await (placement as TmuxPlacement).createPane(['cat'], spec.agentName);
    }
    const paneId = created.paneId;
    let panePid: number;
    try {
      const color = tmuxColor(spec.color);
      const output = await current.commands.runSequence([
        ['set-option', '-p', '-t', paneId, 'remain-on-exit', 'on'],
        ['select-pane', '-t', paneId, '-T', spec.agentName],
        ...(color === undefined
          ? []
          : [['set-option', '-p', '-t', paneId, 'pane-border-style', `fg=${color}`]]),
        [
          'respawn-pane',
          '-k',
          '-t',
          paneId,
          '-c',
          launch.cwd,
          ...launch.environment.flatMap(([name, value]) => ['-e', `${name}=${value}`]),
          '--',
          ...prefix,
          ...launch.argv,
        ],
        ['display-message', '-p', '-t', paneId, '#{pane_pid} #{session_id}'],
        ...(placement as TmuxPlacement).layoutCommands(created.windowId),
        // `-D` turned exit-empty off; on again, so the server ends with its last pane even
        // where no death signal ties it to the lead (macOS).
        ...(current.private === undefined ? [] : [['set-option', '-s', 'exit-empty', 'on']]),
      ]);
      const [pidText, sessionId] = (output.trim().split('\n')[0] ?? '').split(' ');
      panePid = Number(pidText);
      if (!Number.isInteger(panePid) || panePid <= 0)
        throw new Error(`no pane pid in "${output.trim()}"`);
      // Later commands to the private server go through one control-mode client (R17). It is
      // attached before this spawn resolves: an attach still in flight when the server restarts
      // would reach the next server (tmux 3.3a has also crashed on such races).
      if (current.private !== undefined && sessionId !== undefined) {
        current.commands.attach(tmuxPath, sessionId);
        await current.commands.ready(10_000);
      }
    } catch (error) {
      await current.commands
        .run(guardedKillPane({ serverPid: current.identity.serverPid, paneId }))
        .catch(() => undefined);
      throw new BackendError({
        code: 'SPAWN_FAILED',
        message: `tmux could not start ${spec.agentId} in pane ${paneId}: ${error instanceof Error ? error.message : String(error)}.`,
        cause: error,
        details: { agentId: spec.agentId, paneId },
      });
    }
    const paneStartTime = readProcessStat(panePid)?.startTime;
    const notes: string[] = [];
    if (created.notice !== undefined) {
      notes.push(created.notice);
      notice(created.notice);
    }
    const socketLabel = socketLabelFor(current.runner);
    const member = new TmuxMemberHandle({
      spec,
      runner: current.runner,
      identity: {
        ...current.identity,
        paneId,
        panePid,
        ...(paneStartTime === undefined ? {} : { paneStartTime }),
      },
      windowId: created.windowId,
      attachCommand:
        current.private !== undefined
          ? `tmux ${socketLabel} attach -t ${paneId}`
          : `tmux ${socketLabel} select-window -t ${created.windowId} \\; select-pane -t ${paneId}`,
      socketLabel,
      notes,
      ...(link === undefined
        ? {}
        : {
            waitForLink: (signal: AbortSignal) =>
              link.waitForReady(spec.agentId, { timeoutMs: spec.readyTimeoutMs ?? 15_000, signal }),
          }),
      onEnded: (ended) => {
        members.delete(ended);
        stopPollingWhenIdle();
        relayout(ended.windowId);
      },
    });
    members.add(member);
    unregisterCleanup ??= registerCleanup(`tmux members (${socketLabel})`, () => backend.close(), {
      sync: () => {
        for (const live of members) live.killNow();
        server?.commands.closeSync();
        server?.private?.stopSync();
      },
    });
    startPolling();
    return member;
  };

  const backend: Backend = {
    name: 'tmux',
    availability: () => tmuxAvailability(tmuxPath, mode),
    spawn(spec: MemberSpec) {
      if (closed) return Promise.reject(closedError(spec));
      return serialized(() => spawnNow(spec));
    },
    async close() {
      closed = true;
      await queue;
      await Promise.allSettled(
        [...members].map((member) => member.kill({ graceful: true, deadlineMs: 2_000 })),
      );
      clearInterval(poller);
      await server?.commands.close();
      await server?.private?.stop();
      await support.close();
      unregisterCleanup?.();
    },
  };
  return backend;
}

function layoutOptions(options: TmuxBackendOptions): {
  minimumPaneSize?: TmuxPaneSize;
  sessionSize?: TmuxPaneSize;
  leadPercent?: number;
} {
  return {
    ...(options.minimumPaneSize === undefined ? {} : { minimumPaneSize: options.minimumPaneSize }),
    ...(options.sessionSize === undefined ? {} : { sessionSize: options.sessionSize }),
    ...(options.leadPercent === undefined ? {} : { leadPercent: options.leadPercent }),
  };
}

function closedError(spec: MemberSpec): BackendError {
  return new BackendError({
    code: 'CLOSED',
    message: `The tmux backend was closed; ${String(spec?.agentId)} was not started. Create a new backend.`,
  });
}
