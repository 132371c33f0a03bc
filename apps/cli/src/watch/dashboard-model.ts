import {
  parseProtocolMessage,
  TEAM_LEAD_NAME,
  type InboxMessage,
  type PermissionRequest,
  type ProtocolMessage,
  type Task,
  type TeamConfig,
  type TeamMember,
} from '@muster/protocol';
import { describeLook, type MemberLook } from './member-look.js';
import { describeMessage } from './message-words.js';

/** Everything `watch` reads from disk for one team, as the packages return it. */
export interface TeamSnapshot {
  /** The team's folder name. */
  teamName: string;
  /** `teams/{team}/config.json`. */
  config: TeamConfig;
  /** Every inbox in `teams/{team}/inboxes`, by agent name. */
  inboxes: ReadonlyArray<{ agent: string; messages: readonly InboxMessage[] }>;
  /**
   * Every task in `tasks/{team}` (internal ones included) with its open blockers, as
   * `@muster/tasks` lists them.
   */
  tasks: ReadonlyArray<{ task: Task; internal: boolean; openBlockers: readonly string[] }>;
  /**
   * Whether each member's process is running, from muster's runtime sidecar (its process id,
   * or a fresh heartbeat); a member left out is one nobody knows about (a Claude Code team).
   */
  memberProcesses?: ReadonlyMap<string, 'alive' | 'gone'>;
  /**
   * How a person can look at each member muster runs in tmux or on a PTY (attach command,
   * log file), by member name, from the runtime sidecar checked against the live tmux server.
   */
  memberLooks?: ReadonlyMap<string, MemberLook>;
  /**
   * When the files were read (epoch ms). With it, a member with no known process counts as
   * working only if it sent a message in the last {@link RECENT_ACTIVITY_MS}; otherwise its
   * state is `unknown`. Without it, the messages alone decide (as for a finished snapshot).
   */
  observedAt?: number;
  /** Files that could not be read this time (shown under the panes, never hidden). */
  problems?: readonly string[];
  /**
   * For a Claude Code 2.1.330 session team (it records `leadProcess`): whether its lead
   * still runs. `ended` with `teamFolderRemoved` when only the task list (and muster's
   * recorded history) is left, as after `/exit`.
   */
  session?: SessionView;
}

/** A session team's state as the dashboard shows it. */
export interface SessionView {
  state: 'running' | 'ended' | 'unknown';
  reason: string;
  /** The team folder is gone (`/exit` removes it); what is shown is the kept task list and history. */
  teamFolderRemoved?: boolean;
}

/**
 * What a member is doing, as far as the files tell: `working` needs a live process or a
 * recent message from the member; `unknown` when neither a process nor a recent message says
 * anything (a lead created from the command line, a Claude Code team hours after it ended).
 */
export type MemberState =
  'working' | 'idle' | 'awaiting plan approval' | 'stopping' | 'starting' | 'gone' | 'unknown';

/** How recent a member's last message must be to count as a sign of life. */
export const RECENT_ACTIVITY_MS = 10 * 60_000;

/** One line of the members pane. */
export interface MemberRow {
  name: string;
  /** The member's color name from the config (`blue`, `green`, …); the lead shows as red. */
  color: string | undefined;
  /** `in-process`, `tmux`, `iterm2`, `pty`, or `lead`. */
  backend: string;
  state: MemberState;
  isLead: boolean;
  model: string | undefined;
  agentType: string | undefined;
  /** Unread messages in the member's inbox. */
  unread: number;
  /** Timestamp of the member's last message (any inbox), when it sent one. */
  lastMessageAt: string | undefined;
  /** `isActive` from the config (2.1.330 keeps it for pane teammates); undefined when absent. */
  isActive: boolean | undefined;
  /** How to look at it: `attach: tmux -L … attach -t %3`, `log <file>`, or a stale tmux record. */
  look?: string;
}

/** One line of the tasks pane. */
export interface TaskRow {
  id: string;
  subject: string;
  description: string;
  status: Task['status'];
  owner: string | undefined;
  activeForm: string | undefined;
  /** Blockers that are not completed yet. */
  openBlockers: string[];
  /** Tasks this one blocks. */
  blocks: string[];
}

/** One line of the messages feed. */
export interface FeedEntry {
  /** Stable key: first inbox and index of the entry. */
  key: string;
  timestamp: string;
  from: string;
  fromColor: string | undefined;
  /** Every inbox the entry landed in (a broadcast lands in several). */
  recipients: string[];
  /** `text` or the protocol message type. */
  kind: string;
  sentence: string;
  detail: string;
  /** Read by every recipient. */
  read: boolean;
  /** The entry carries a `lead_sig` (a 2.1.330 lead's signed entry to a pane teammate). */
  signed: boolean;
}

/** Everything the dashboard draws. */
export interface DashboardModel {
  teamName: string;
  description: string | undefined;
  members: MemberRow[];
  tasks: TaskRow[];
  /** Internal tracking tasks (one per spawned teammate) left out of `tasks`. */
  hiddenTaskCount: number;
  /** Most recent last. */
  feed: FeedEntry[];
  problems: string[];
  /** A session team's state (Claude Code 2.1.330); absent for other teams. */
  session?: SessionView;
  /** `tmux members: attach with \`tmux -L muster-<team> attach\`` when members run on a live private server. */
  attachHint?: string;
}

interface LocatedMessage {
  recipient: string;
  index: number;
  message: InboxMessage;
  time: number;
  protocol: ProtocolMessage | undefined;
}

const BROADCAST_WINDOW_MS = 2_000;
const FEED_LIMIT = 200;

function backendOf(member: TeamMember, isLead: boolean): string {
  // A 2.1.330 lead says backendType "in-process"; it is the lead all the same.
  if (isLead) return 'lead';
  if (member.backendType) return member.backendType;
  // 2.1.330 writes a pane teammate with tmuxPaneId "" until its pane exists.
  if (member.tmuxPaneId === '') return 'pane';
  if (member.tmuxPaneId === 'in-process') return 'in-process';
  return member.tmuxPaneId ? 'tmux' : 'unknown';
}

function memberState(
  member: TeamMember,
  fromMember: readonly LocatedMessage[],
  located: readonly LocatedMessage[],
  process: 'alive' | 'gone' | undefined,
  observedAt: number | undefined,
  starting: boolean,
): MemberState {
  if (process === 'gone') return 'gone';
  const since = member.joinedAt;
  const toMember = located.filter(
    (entry) => entry.recipient === member.name && entry.time >= since,
  );
  if (fromMember.some((entry) => entry.protocol?.type === 'shutdown_approved')) return 'gone';
  if (starting) return 'starting';

  const answeredShutdowns = new Set(
    fromMember.flatMap((entry) =>
      entry.protocol?.type === 'shutdown_approved' || entry.protocol?.type === 'shutdown_rejected'
        ? [entry.protocol.requestId]
        : [],
    ),
  );
  const pendingShutdown = toMember.some(
    (entry) =>
      entry.protocol?.type === 'shutdown_request' &&
      !answeredShutdowns.has(entry.protocol.requestId),
  );
  if (pendingShutdown) return 'stopping';

  const answeredPlans = new Set(
    toMember.flatMap((entry) =>
      entry.protocol?.type === 'plan_approval_response' ? [entry.protocol.requestId] : [],
    ),
  );
  const pendingPlan = fromMember.some(
    (entry) =>
      entry.protocol?.type === 'plan_approval_request' &&
      !answeredPlans.has(entry.protocol.requestId),
  );
  if (pendingPlan) return 'awaiting plan approval';

  if (member.isActive === false) return 'idle';
  const lastIdle = fromMember
    .filter((entry) => entry.protocol?.type === 'idle_notification')
    .reduce((latest, entry) => Math.max(latest, entry.time), Number.NEGATIVE_INFINITY);
  const wokenSince = toMember.some(
    (entry) => entry.time > lastIdle && entry.message.from !== member.name,
  );
  if (lastIdle !== Number.NEGATIVE_INFINITY && !wokenSince && member.isActive !== true) {
    return 'idle';
  }
  // Everything says "working" from here on; say it only when something shows it runs.
  if (process === 'alive' || observedAt === undefined) return 'working';
  const lastMessage = fromMember.reduce(
    (latest, entry) => Math.max(latest, entry.time),
    Number.NEGATIVE_INFINITY,
  );
  return observedAt - lastMessage <= RECENT_ACTIVITY_MS ? 'working' : 'unknown';
}

function taskRows(tasks: TeamSnapshot['tasks']): { rows: TaskRow[]; hidden: number } {
  const visible = tasks.filter((listed) => !listed.internal);
  const rows = visible
    .slice()
    .sort((left, right) => Number(left.task.id) - Number(right.task.id))
    .map(({ task, openBlockers }) => ({
      id: task.id,
      subject: task.subject,
      description: task.description,
      status: task.status,
      owner: task.owner,
      activeForm: task.activeForm,
      openBlockers: [...openBlockers],
      blocks: [...task.blocks],
    }));
  return { rows, hidden: tasks.length - visible.length };
}

function locateMessages(snapshot: TeamSnapshot): LocatedMessage[] {
  const located: LocatedMessage[] = [];
  for (const inbox of snapshot.inboxes) {
    inbox.messages.forEach((message, index) => {
      const time = Date.parse(message.timestamp);
      located.push({
        recipient: inbox.agent,
        index,
        message,
        time: Number.isNaN(time) ? 0 : time,
        protocol: parseProtocolMessage(message.text),
      });
    });
  }
  return located.sort((left, right) => left.time - right.time);
}

function buildFeed(
  located: readonly LocatedMessage[],
  colors: ReadonlyMap<string, string>,
  memberNames: readonly string[],
) {
  const permissionRequests = new Map<string, PermissionRequest>();
  for (const entry of located) {
    if (entry.protocol?.type === 'permission_request') {
      permissionRequests.set(entry.protocol.request_id, entry.protocol);
    }
  }
  const groups: { first: LocatedMessage; all: LocatedMessage[] }[] = [];
  const open = new Map<string, { first: LocatedMessage; all: LocatedMessage[] }>();
  for (const entry of located) {
    const groupKey = `${entry.message.from}\u0000${entry.message.text}`;
    const existing = open.get(groupKey);
    if (
      existing &&
      entry.time - existing.first.time <= BROADCAST_WINDOW_MS &&
      !existing.all.some((member) => member.recipient === entry.recipient)
    ) {
      existing.all.push(entry);
      continue;
    }
    const group = { first: entry, all: [entry] };
    open.set(groupKey, group);
    groups.push(group);
  }
  const approvedPlans = new Set<string>();
  const feed = groups.map(({ first, all }): FeedEntry => {
    const recipients = all.map((entry) => entry.recipient);
    const others = memberNames.filter((name) => name !== first.message.from);
    const toEveryone =
      recipients.length > 1 &&
      others.length === recipients.length &&
      others.every((name) => recipients.includes(name));
    const words = describeMessage(first.message, {
      recipient: toEveryone ? 'everyone' : recipients.join(', '),
      permissionRequests,
      approvedPlans,
    });
    // Groups come oldest first: a rejection is described knowing the approvals before it.
    if (first.protocol?.type === 'plan_approval_response' && first.protocol.approved) {
      approvedPlans.add(first.protocol.requestId);
    }
    return {
      key: `${first.recipient}#${first.index}`,
      timestamp: first.message.timestamp,
      from: first.message.from,
      fromColor:
        first.message.color ??
        colors.get(first.message.from) ??
        (first.message.from === TEAM_LEAD_NAME ? 'red' : undefined),
      recipients,
      kind: words.kind,
      sentence: words.sentence,
      detail: words.detail,
      read: all.every((entry) => entry.message.read),
      signed: words.signed,
    };
  });
  return feed.slice(-FEED_LIMIT);
}

/** Turns what is on disk into what the dashboard shows. Pure: same snapshot, same model. */
export function buildDashboardModel(snapshot: TeamSnapshot): DashboardModel {
  const located = locateMessages(snapshot);
  const colors = new Map<string, string>();
  for (const member of snapshot.config.members) {
    if (member.color) colors.set(member.name, member.color);
  }
  const members = snapshot.config.members.map((member): MemberRow => {
    const isLead = member.agentId === snapshot.config.leadAgentId || member.name === TEAM_LEAD_NAME;
    const inbox = snapshot.inboxes.find((candidate) => candidate.agent === member.name);
    const fromMember = located.filter(
      (entry) => entry.message.from === member.name && entry.time >= member.joinedAt,
    );
    const lastFromMember = fromMember.at(-1);
    return {
      name: member.name,
      color: member.color ?? (isLead ? 'red' : undefined),
      backend: backendOf(member, isLead),
      state: memberState(
        member,
        fromMember,
        located,
        snapshot.memberProcesses?.get(member.name),
        snapshot.observedAt,
        !isLead && member.tmuxPaneId === '' && (member.backendType ?? 'tmux') !== 'pty',
      ),
      isLead,
      model: member.model,
      agentType: member.agentType,
      unread: inbox ? inbox.messages.filter((message) => !message.read).length : 0,
      lastMessageAt: lastFromMember?.message.timestamp,
      isActive: member.isActive,
      ...lookOf(snapshot.memberLooks?.get(member.name)),
    };
  });
  const attachHint = attachHintOf(snapshot.memberLooks);
  const { rows, hidden } = taskRows(snapshot.tasks);
  return {
    teamName: snapshot.teamName,
    description: snapshot.config.description,
    members,
    tasks: rows,
    hiddenTaskCount: hidden,
    feed: buildFeed(
      located,
      colors,
      snapshot.config.members.map((member) => member.name),
    ),
    problems: [...(snapshot.problems ?? [])],
    ...(snapshot.session ? { session: { ...snapshot.session } } : {}),
    ...(attachHint === undefined ? {} : { attachHint }),
  };
}

function lookOf(look: MemberLook | undefined): { look?: string } {
  return look === undefined ? {} : { look: describeLook(look) };
}

/** The header's hint: the attach command of each live private tmux server members run on. */
function attachHintOf(looks: ReadonlyMap<string, MemberLook> | undefined): string | undefined {
  const commands = new Set<string>();
  for (const look of looks?.values() ?? []) {
    if (look.kind === 'tmux' && look.state === 'running' && look.serverAttachCommand) {
      commands.add(`\`${look.serverAttachCommand}\``);
    }
  }
  return commands.size === 0
    ? undefined
    : `tmux members: attach with ${[...commands].join(' or ')}`;
}

/** A session team's state in words, for the dashboard's header and `muster team`. */
export function describeSession(session: SessionView): string {
  if (session.state === 'running') return 'session running';
  if (session.state === 'unknown') return `session state unknown (${session.reason})`;
  return session.teamFolderRemoved
    ? 'session ended: its team folder is gone; showing the kept task list and the messages muster recorded'
    : `session ended (${session.reason})`;
}
