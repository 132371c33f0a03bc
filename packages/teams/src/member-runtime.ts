import { existsSync } from 'node:fs';
import { isProcessAlive, readFileSnapshot, skipWrite, updateFile } from '@muster/file-lock';
import {
  BackendTypeSchema,
  EpochMillisecondsSchema,
  formatJsonFile,
  parseAgentId,
  safeParseJsonFile,
  type BackendType,
  type TeamMember,
} from '@muster/protocol';
import { z } from 'zod';
import { requireMember } from './member-names.js';
import { isRecordedProcessGone, processStartIdentity } from './process-start-identity.js';
import {
  assertTeamName,
  layoutFor,
  readTeamConfigFile,
  teamNotFound,
  type TeamLockOptions,
} from './team-config-file.js';
import { TeamsError, translateFileError } from './teams-error.js';

/** Name of the sidecar file under `teams/{team}/.muster/`. */
export const MEMBER_RUNTIME_FILE_NAME = 'members.json';

/**
 * What muster knows about one member's running process. Claude Code's `config.json` has no
 * field for any of this, so it lives in muster's sidecar, keyed by member name.
 */
export const MemberRuntimeSchema = z
  .looseObject({
    /** The member's agent id when the record was made. */
    agentId: z.string().min(1),
    /** The member's `joinedAt`: a record only describes the member that joined then. */
    memberJoinedAt: EpochMillisecondsSchema,
    /** Process id of the member's process (absent for in-process members). */
    pid: z.number().int().positive().optional(),
    /** Machine the process runs on. */
    hostname: z.string().optional(),
    /** Linux boot id at recording time. */
    bootId: z.string().optional(),
    /** Process start time (clock ticks since boot), to tell a reused pid apart. */
    processStartTime: z.string().optional(),
    /** Backend the member runs in. */
    backend: BackendTypeSchema.optional(),
    /** Terminal pane id (`%3`), when there is one. */
    paneId: z.string().optional(),
    /** Backend-specific details (session names, socket paths, …). */
    details: z.record(z.string(), z.unknown()).optional(),
    /** When the record was made, epoch ms. */
    recordedAt: EpochMillisecondsSchema,
    /** Last sign of life, epoch ms. */
    heartbeatAt: EpochMillisecondsSchema.optional(),
  })
  .meta({ id: 'MemberRuntime' });
export type MemberRuntime = z.infer<typeof MemberRuntimeSchema>;

/** `teams/{team}/.muster/members.json`: `{ version: 1, members: { [name]: MemberRuntime } }`. */
export const MemberRuntimeFileSchema = z
  .looseObject({
    version: z.literal(1),
    members: z.record(z.string(), MemberRuntimeSchema),
  })
  .meta({ id: 'MemberRuntimeFile' });
export type MemberRuntimeFile = z.infer<typeof MemberRuntimeFileSchema>;

/** What {@link recordMemberRuntime} stores about a member's process. */
export interface RecordMemberRuntimeOptions {
  pid?: number;
  backend?: BackendType;
  paneId?: string;
  details?: Record<string, unknown>;
  /** Time of the record (and first heartbeat), epoch ms; default now. */
  now?: number;
}

const teamMissing = Symbol('team missing');

function parseRuntimeFile(text: string, file: string): MemberRuntimeFile {
  const result = safeParseJsonFile(text, MemberRuntimeFileSchema, file);
  if (!result.success) throw result.error;
  return result.value;
}

function sidecarFile(root: string, team: string) {
  const layout = layoutFor(root);
  return { layout, file: layout.sidecarPath(assertTeamName(team), MEMBER_RUNTIME_FILE_NAME) };
}

async function updateRuntimeFile(
  root: string,
  team: string,
  update: (current: MemberRuntimeFile | undefined) => MemberRuntimeFile | typeof skipWrite,
  options: TeamLockOptions,
): Promise<void> {
  const { layout, file } = sidecarFile(root, team);
  const configPath = layout.teamConfigPath(team);
  try {
    await updateFile(file, {
      ...options,
      root: layout.root,
      parse: parseRuntimeFile,
      serialize: formatJsonFile,
      update: (current) => {
        // Never recreate the folder of a team deleted meanwhile.
        if (!existsSync(configPath)) throw teamMissing;
        return update(current === undefined ? undefined : structuredClone(current));
      },
    });
  } catch (error) {
    if (error === teamMissing) throw await teamNotFound(layout, team);
    throw translateFileError(error, team, file);
  }
}

/**
 * Records (replacing any earlier record) the process behind a member: pid with its start
 * identity, backend, pane, details. The member must be in the team's config; a `pid` that is
 * not running is refused with `INVALID_INPUT`. Returns the record written.
 */
export async function recordMemberRuntime(
  root: string,
  team: string,
  agentIdOrName: string,
  runtime: RecordMemberRuntimeOptions,
  options: TeamLockOptions = {},
): Promise<MemberRuntime> {
  const config = await readTeamConfigFile(layoutFor(root), team, options);
  const member = requireMember(team, config, agentIdOrName);
  const now = runtime.now ?? Date.now();
  const record: MemberRuntime = {
    agentId: member.agentId,
    memberJoinedAt: member.joinedAt,
    recordedAt: now,
    heartbeatAt: now,
  };
  if (runtime.pid !== undefined) {
    if (!isProcessAlive(runtime.pid)) {
      throw new TeamsError({
        code: 'INVALID_INPUT',
        message: `Cannot record process ${runtime.pid} for "${member.name}" in team "${team}": no such process is running. Pass the pid of the member's live process.`,
        details: { team, member: member.name, pid: runtime.pid },
      });
    }
    Object.assign(record, { pid: runtime.pid, ...processStartIdentity(runtime.pid) });
  }
  if (runtime.backend !== undefined) record.backend = runtime.backend;
  if (runtime.paneId !== undefined) record.paneId = runtime.paneId;
  if (runtime.details !== undefined) record.details = runtime.details;
  const checked = MemberRuntimeSchema.safeParse(record);
  if (!checked.success) {
    throw new TeamsError({
      code: 'INVALID_INPUT',
      message: `Cannot record the runtime of "${member.name}" in team "${team}": ${checked.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}.`,
      details: { team, member: member.name },
    });
  }
  await updateRuntimeFile(
    root,
    team,
    (current) => {
      const file = current ?? { version: 1 as const, members: {} };
      file.members[member.name] = record;
      return file;
    },
    options,
  );
  return record;
}

/**
 * Sets `heartbeatAt` on a member's runtime record. `MEMBER_NOT_FOUND` when there is no
 * record: call {@link recordMemberRuntime} first.
 */
export async function heartbeat(
  root: string,
  team: string,
  agentIdOrName: string,
  options: TeamLockOptions & { now?: number } = {},
): Promise<void> {
  const { now: time, ...lockOptions } = options;
  const name = parseAgentId(agentIdOrName)?.agentName ?? agentIdOrName;
  const now = time ?? Date.now();
  const { file } = sidecarFile(root, team);
  let missing: string[] | undefined;
  await updateRuntimeFile(
    root,
    team,
    (current) => {
      const record = current?.members[name];
      if (current === undefined || record === undefined) {
        missing = Object.keys(current?.members ?? {});
        return skipWrite;
      }
      record.heartbeatAt = now;
      missing = undefined;
      return current;
    },
    lockOptions,
  );
  if (missing !== undefined) {
    throw new TeamsError({
      code: 'MEMBER_NOT_FOUND',
      message: `Team "${team}" has no runtime record for "${name}" in ${file}; call recordMemberRuntime for it first. Recorded: ${missing.join(', ') || 'none'}.`,
      details: { team, wanted: agentIdOrName, members: missing },
    });
  }
}

/**
 * Every runtime record of a team, keyed by member name (`{}` when none was recorded). Records
 * of members who have since left may remain; match them with {@link findMemberRuntime}.
 * `TEAM_NOT_FOUND` without a team; `CORRUPT_FILE` (file moved aside) when the sidecar does
 * not parse even under its lock.
 */
export async function readMemberRuntime(
  root: string,
  team: string,
  options: TeamLockOptions = {},
): Promise<Record<string, MemberRuntime>> {
  const { layout, file } = sidecarFile(root, team);
  let snapshot;
  try {
    snapshot = await readFileSnapshot(file, { root: layout.root });
    if (snapshot === undefined) {
      const config = await readFileSnapshot(layout.teamConfigPath(team), { root: layout.root });
      if (config === undefined) throw await teamNotFound(layout, team);
      return {};
    }
  } catch (error) {
    throw translateFileError(error, team, file);
  }
  const quick = safeParseJsonFile(snapshot.text, MemberRuntimeFileSchema, file);
  if (quick.success) return quick.value.members;
  let value: MemberRuntimeFile | undefined;
  try {
    value = (
      await updateFile(file, {
        ...options,
        root: layout.root,
        createIfMissing: false,
        parse: parseRuntimeFile,
        serialize: formatJsonFile,
        update: () => skipWrite,
      })
    ).value;
  } catch (error) {
    throw translateFileError(error, team, file);
  }
  return value?.members ?? {};
}

/** The record that describes this member (same agent id and join time), if any. */
export function findMemberRuntime(
  runtimes: Record<string, MemberRuntime>,
  member: TeamMember,
): MemberRuntime | undefined {
  const record = runtimes[member.name];
  if (record === undefined) return undefined;
  return record.agentId === member.agentId && record.memberJoinedAt === member.joinedAt
    ? record
    : undefined;
}

/**
 * False only when the recorded process is certainly gone (pid free, or reused by a process
 * that started at another time, or recorded before this machine last booted). A record
 * without a pid, or from another machine, counts as alive: liveness is never guessed.
 */
export function isMemberProcessAlive(runtime: MemberRuntime): boolean {
  if (runtime.pid === undefined) return true;
  if (runtime.hostname === undefined) return isProcessAlive(runtime.pid);
  return !isRecordedProcessGone(runtime.pid, { ...runtime, hostname: runtime.hostname });
}
