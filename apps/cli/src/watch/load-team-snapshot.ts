import { readdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { readFileSnapshot } from '@muster/file-lock';
import {
  createRootLayout,
  InboxSchema,
  safeParseJsonFile,
  TeamConfigSchema,
  type InboxMessage,
  type TeamConfig,
} from '@muster/protocol';
import { inboxHistoryAgents } from '@muster/mailbox';
import { createTaskStore } from '@muster/tasks';
import {
  findMemberRuntime,
  isMemberProcessAlive,
  MEMBER_RUNTIME_FILE_NAME,
  MemberRuntimeFileSchema,
  TeamsError,
  type MemberRuntime,
} from '@muster/teams';
import { sessionStateOf } from '../session/session-state.js';
import type { TeamSnapshot } from './dashboard-model.js';
import { conversationMessages, readConversation } from './inbox-history-view.js';
import { lookAtMember, type MemberLook, type TmuxServerPanes } from './member-look.js';

const TORN_READ_RETRY_MS = 40;

/** A heartbeat younger than this shows a member without a process id (in-process) alive. */
export const FRESH_HEARTBEAT_MS = 60_000;

/**
 * What a runtime record says about a member's process: `alive` or `gone` when its process
 * id can be checked on this machine, `alive` when a member without one (in-process, or on
 * another machine) sent a heartbeat in the last {@link FRESH_HEARTBEAT_MS}; `undefined`
 * (unknown) otherwise, since an old heartbeat proves nothing either way.
 */
export function memberLiveness(
  record: MemberRuntime,
  now: number,
  machine: string = hostname(),
): 'alive' | 'gone' | undefined {
  const checkable =
    record.pid !== undefined && (record.hostname === undefined || record.hostname === machine);
  if (checkable) return isMemberProcessAlive(record) ? 'alive' : 'gone';
  if (record.heartbeatAt !== undefined && now - record.heartbeatAt <= FRESH_HEARTBEAT_MS) {
    return 'alive';
  }
  return undefined;
}

/**
 * Reads a JSON file and validates it, without locks and without ever writing: Claude Code
 * rewrites inboxes in place, so a read that does not parse is tried once more before the
 * file is reported (never moved aside: watching is read-only).
 */
async function readValidated<T>(
  file: string,
  parse: (text: string) => { success: true; value: T } | { success: false; error: Error },
): Promise<{ value?: T; problem?: string }> {
  for (let attempt = 0; ; attempt += 1) {
    const snapshot = await readFileSnapshot(file);
    if (snapshot === undefined) return {};
    const result = parse(snapshot.text);
    if (result.success) return { value: result.value };
    if (attempt >= 1) return { problem: result.error.message };
    await sleep(TORN_READ_RETRY_MS);
  }
}

async function inboxAgents(directory: string): Promise<string[]> {
  try {
    return (await readdir(directory))
      .filter((name) => name.endsWith('.json'))
      .map((name) => name.slice(0, -'.json'.length))
      .sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/**
 * Reads everything the dashboard shows about one team — config, every inbox, every task,
 * muster's record of member processes — without taking locks and without writing anything.
 * Files that cannot be read are listed in `problems` instead of failing the whole read.
 * Throws `TEAM_NOT_FOUND` when the team's config is missing or unreadable.
 */
export async function loadTeamSnapshot(root: string, team: string): Promise<TeamSnapshot> {
  const observedAt = Date.now();
  const layout = createRootLayout(root);
  const configPath = layout.teamConfigPath(team);
  const problems: string[] = [];
  const config = await readValidated<TeamConfig>(configPath, (text) =>
    safeParseJsonFile(text, TeamConfigSchema, configPath),
  );
  if (config.value === undefined) {
    throw new TeamsError({
      code: 'TEAM_NOT_FOUND',
      message: config.problem
        ? `Team "${team}" cannot be shown: ${config.problem} Run "muster doctor" for details.`
        : `Team "${team}" has no config at ${configPath} (deleted?). Check the name and --root.`,
      details: { team, root },
    });
  }
  const inboxes: { agent: string; messages: InboxMessage[] }[] = [];
  const agents = new Set([
    ...(await inboxAgents(layout.inboxesDirectory(team))),
    ...(await inboxHistoryAgents({ root, team })),
  ]);
  for (const agent of [...agents].sort()) {
    let file: string;
    try {
      file = layout.inboxPath(team, agent);
    } catch (error) {
      // A file no agent name maps to (a control character in its name): shown, not fatal.
      problems.push(`inbox file "${agent}.json" is skipped: ${(error as Error).message}`);
      continue;
    }
    const inbox = await readValidated<InboxMessage[]>(file, (text) =>
      safeParseJsonFile(text, InboxSchema, file),
    );
    if (inbox.problem) problems.push(`${agent}'s inbox: ${inbox.problem}`);
    // Claude Code 2.1.330 removes what it delivers: the feed shows what muster recorded too.
    const conversation = await readConversation(root, team, agent, inbox.value ?? [], problems);
    inboxes.push({ agent, messages: conversationMessages(conversation) });
  }
  const listing = await createTaskStore({ root, team }).list({ includeInternal: true });
  for (const problem of listing.problems) problems.push(problem.message);

  const memberProcesses = new Map<string, 'alive' | 'gone'>();
  const runtimePath = layout.sidecarPath(team, MEMBER_RUNTIME_FILE_NAME);
  const runtime = await readValidated(runtimePath, (text) =>
    safeParseJsonFile(text, MemberRuntimeFileSchema, runtimePath),
  );
  if (runtime.problem) problems.push(`member runtime record: ${runtime.problem}`);
  // A 2.1.330 session's lead process carries the lead and its in-process teammates.
  const session = sessionStateOf(config.value);
  const memberLooks = new Map<string, MemberLook>();
  const tmuxServers = new Map<string, Promise<TmuxServerPanes>>();
  for (const member of config.value.members) {
    const record = runtime.value ? findMemberRuntime(runtime.value.members, member) : undefined;
    const look = record ? await lookAtMember(record, { servers: tmuxServers }) : undefined;
    if (look) memberLooks.set(member.name, look);
    const liveness = record ? memberLiveness(record, observedAt) : undefined;
    if (liveness) memberProcesses.set(member.name, liveness);
    const inLeadProcess =
      member.agentId === config.value.leadAgentId || member.backendType === 'in-process';
    if (liveness === undefined && inLeadProcess && session && session.state !== 'unknown') {
      memberProcesses.set(member.name, session.state === 'running' ? 'alive' : 'gone');
    }
    // A running 2.1.330 lead keeps isActive up to date for its pane teammates.
    if (liveness === undefined && member.isActive === true && session?.state === 'running') {
      memberProcesses.set(member.name, 'alive');
    }
  }
  return {
    teamName: team,
    config: config.value,
    inboxes,
    tasks: listing.tasks,
    memberProcesses,
    memberLooks,
    observedAt,
    problems,
    ...(session ? { session: { state: session.state, reason: session.reason } } : {}),
  };
}
