// The lead's side of one team, from TeamCreate to TeamDelete: its signing mailbox, the
// permission broker, the watch on the lead's inbox, the teammates it spawned (their handles),
// and their graceful or forced end. Control requests go to the broker (and to the asks);
// everything else a teammate writes waits for the lead's model.
import { createMemberMonitor, type MemberHandle, type MemberMonitor } from '@muster/backends';
import { createMailbox, type Mailbox } from '@muster/mailbox';
import {
  createAuditLog,
  createMailboxMessenger,
  createPermissionBroker,
  decideInContext,
  type LeadKeyring,
  type PermissionBroker,
  type PermissionContext,
} from '@muster/permissions';
import {
  createShutdownRequestId,
  TEAM_LEAD_NAME,
  type BackendType,
  type IdleNotification,
  type InboxMessage,
  parseProtocolMessage,
} from '@muster/protocol';
import { removeMember } from '@muster/teams';
import { formatInboxEntry } from './inbox-delivery.js';
import type { AskDesk } from './team-runtime-asks.js';
import type { AskAnswer } from './team-runtime-options.js';
import type { TeamEvent } from './team-event.js';

/** A teammate this lead spawned. */
export interface LeadMember {
  name: string;
  agentId: string;
  backendType: BackendType;
  handle: MemberHandle;
  /** Its color in the team config. */
  color?: string;
  /** Its agent type. */
  agentType?: string;
  /** The model id it runs. */
  model?: string;
  /** When its latest idle notification arrived (epoch ms). */
  idleAt?: number;
  /** Set once it approved a shutdown. */
  shutdownApproved?: boolean;
  /** Settles when its end was handled (config entry removed after an approved shutdown). */
  ended: Promise<void>;
}

/** Options of {@link openLeadTeam}. */
export interface LeadTeamOptions {
  root: string;
  teamName: string;
  keyring: LeadKeyring;
  /** The lead's permission context when the team was entered (the broker keeps it from then on). */
  leadContext: PermissionContext;
  asks: AskDesk;
  planApproval: 'model' | 'person';
  emit: (event: TeamEvent) => void;
  /** Text for the lead's model; `onTaken` runs when a turn took it. */
  deliver: (text: string, onTaken: () => void) => void;
  /** How long a teammate has to end after its approved shutdown before it is killed. */
  memberExitDeadlineMs: number;
  /** A process member (pty, tmux, iTerm2) sent an idle notification (its `tokenUsage` is its usage total). */
  onProcessMemberIdle?: (memberName: string, notification: IdleNotification) => void;
}

/** The lead's side of one team. */
export interface LeadTeam {
  readonly teamName: string;
  readonly mailbox: Mailbox;
  readonly broker: PermissionBroker;
  readonly monitor: MemberMonitor;
  members(): LeadMember[];
  /** Records a spawned teammate. */
  adopt(member: Omit<LeadMember, 'ended'>): void;
  /** Members whose run has not ended. */
  liveMembers(): LeadMember[];
  /** True when the member's newest inbox entry is older than its latest idle notification. */
  isIdle(member: LeadMember): Promise<boolean>;
  /** Whether the lead's inbox holds entries not yet handled. */
  leadHasUnread(): Promise<boolean>;
  /**
   * Whether `member` wrote a `shutdown_approved` to the lead's inbox (read from the file: the
   * watch may not have delivered it yet when the member's run has already ended).
   */
  wroteShutdownApproved(member: LeadMember): Promise<boolean>;
  /** Sends a signed shutdown_request to a member. */
  requestShutdown(member: LeadMember, reason: string): Promise<void>;
  /** Stops the inbox watch and the monitor (members are left to the caller). */
  stop(): Promise<void>;
}

/** True when the member's run ends within `milliseconds`, false when the time ran out first. */
export function endsWithin(handle: MemberHandle, milliseconds: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), milliseconds);
    timer.unref();
    void handle.exited.then(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/** Opens the lead's side of `teamName`: starts the inbox watch at once. */
export function openLeadTeam(options: LeadTeamOptions): LeadTeam {
  const { root, teamName, emit } = options;
  const mailbox = createMailbox({ root, team: teamName, ...options.keyring.mailboxOptions() });
  const audit = createAuditLog({ root, team: teamName });
  const broker = createPermissionBroker({
    messenger: createMailboxMessenger({ mailbox, agentName: TEAM_LEAD_NAME }),
    teamName,
    root,
    leadContext: options.leadContext,
    audit,
  });
  const monitor = createMemberMonitor({
    root,
    teamName,
    onMemberGone: (gone) =>
      emit({
        type: 'notice',
        level: gone.exit.reason === 'exited' ? 'info' : 'warning',
        agentName: gone.agentName,
        text: `${gone.agentName} is gone (${gone.exit.message}); its open tasks were released.`,
        at: Date.now(),
      }),
  });
  const members = new Map<string, LeadMember>();

  const headlessPermission = (
    request: ReturnType<PermissionBroker['pendingPermissions']>[number],
  ) => {
    const decision = decideInContext(broker.leadContext(), {
      toolName: request.toolName,
      input: request.input,
      readOnly: false,
    });
    return decision.behavior === 'allow'
      ? { behavior: 'allow' as const, by: 'headless policy' }
      : {
          behavior: 'deny' as const,
          by: 'headless policy',
          message: `Denied: no person is there to approve it, and the lead's rules and mode do not allow ${request.toolName} here (${decision.message}). Ask the lead to add a rule, or do without it.`,
        };
  };

  // A pane teammate does not hold the lead's rules, so it asks about calls they allow: those
  // are not a person's question. Only rules (an allow rule, a path the team approved) count:
  // the lead's mode does not, since a teammate may have been spawned in a narrower one.
  const allowedByLeadRules = (
    request: ReturnType<PermissionBroker['pendingPermissions']>[number],
  ): AskAnswer | undefined => {
    const decision = decideInContext(broker.leadContext(), {
      toolName: request.toolName,
      input: request.input,
      readOnly: false,
    });
    const byRule =
      decision.reason.kind === 'allowRule' || decision.reason.kind === 'teamAllowedPath';
    return decision.behavior === 'allow' && byRule
      ? {
          behavior: 'allow',
          by: `the lead's rule ${decision.reason.rule ?? decision.reason.detail}`,
        }
      : undefined;
  };

  const unsubscribe = broker.onPermissionRequest((request) => {
    void options.asks
      .raise({
        kind: 'permission',
        agentName: request.workerName,
        toolName: request.toolName,
        input: request.input,
        description: request.description,
        headless: () => headlessPermission(request),
        decided: () => allowedByLeadRules(request),
        settle: async (answer) => {
          if (answer.behavior === 'allow') {
            await broker.approve(request.requestId, {
              approvedBy: answer.by ?? 'person',
              ...(answer.scope === 'always' && request.permissionSuggestions.length > 0
                ? { permissionUpdates: request.permissionSuggestions }
                : {}),
            });
          } else {
            await broker.deny(
              request.requestId,
              answer.message ?? 'The lead denied this tool call.',
            );
          }
        },
      })
      .catch((error: unknown) =>
        report(`answering ${request.workerName}'s permission request`, error),
      );
  });

  const report = (what: string, error: unknown) =>
    emit({
      type: 'notice',
      level: 'error',
      text: `Lead runtime, ${what}: ${(error as Error)?.message ?? String(error)}`,
      at: Date.now(),
    });

  const raisePlanAsk = (message: InboxMessage) => {
    for (const plan of broker.pendingPlans()) {
      if (plan.workerName !== message.from) continue;
      void options.asks
        .raise({
          kind: 'plan',
          agentName: plan.workerName,
          description: plan.planContent,
          headless: () => ({
            behavior: 'deny',
            by: 'headless policy',
            message: 'No person is there to review plans; this plan was not approved.',
          }),
          settle: async (answer) => {
            if (answer.behavior === 'allow') await broker.approvePlan(plan.requestId);
            else await broker.rejectPlan(plan.requestId, answer.message ?? 'Rejected.');
          },
        })
        .catch((error: unknown) => report(`answering ${plan.workerName}'s plan`, error));
    }
  };

  const handleShutdownApproved = (message: InboxMessage) => {
    const member = members.get(message.from);
    if (member === undefined || member.shutdownApproved === true) return;
    member.shutdownApproved = true;
    // The entry alone proves nothing (anyone can write to the lead's inbox): the member leaves
    // the config only once its run has really ended; one that does not end is killed.
    void endsWithin(member.handle, options.memberExitDeadlineMs).then(async (ended) => {
      if (!ended) await member.handle.kill({ graceful: false });
      await removeMember(root, teamName, member.agentId).catch((error: unknown) => {
        // Already out of the config, or the whole team was deleted meanwhile: nothing to remove.
        const code = (error as { code?: unknown })?.code;
        if (code === 'TEAM_NOT_FOUND' || code === 'MEMBER_NOT_FOUND') return;
        report(`removing ${member.name} from the team config`, error);
      });
    });
  };

  const controller = new AbortController();
  const watching = (async () => {
    for await (const delivery of mailbox.watch(TEAM_LEAD_NAME, { signal: controller.signal })) {
      const { message, content } = delivery;
      const type = content.kind === 'protocol' ? content.message.type : undefined;
      const markRead = () =>
        void mailbox
          .markRead(TEAM_LEAD_NAME, [delivery])
          .catch((error: unknown) => report('marking the lead inbox read', error));
      if (
        type === 'permission_request' ||
        type === 'sandbox_permission_request' ||
        type === 'plan_approval_request'
      ) {
        try {
          await broker.handleMessage(message, { via: 'mailbox' });
        } catch (error) {
          report(`taking ${message.from}'s ${type}`, error);
        }
        if (type !== 'plan_approval_request' || options.planApproval === 'person') {
          if (type === 'plan_approval_request') raisePlanAsk(message);
          markRead();
          continue;
        }
      }
      if (type === 'idle_notification' && content.kind === 'protocol') {
        const member = members.get(message.from);
        if (member !== undefined) member.idleAt = Date.now();
        // An in-process member reports its states and requests itself; a process member's
        // idle notification tells its state and usage.
        if (member !== undefined && member.backendType !== 'in-process') {
          options.onProcessMemberIdle?.(member.name, content.message as IdleNotification);
        }
      }
      if (type === 'shutdown_approved') handleShutdownApproved(message);
      emit({
        type: 'message',
        from: message.from,
        to: TEAM_LEAD_NAME,
        text: message.text,
        ...(message.summary === undefined ? {} : { summary: message.summary }),
        ...(type === undefined ? {} : { protocolType: type }),
        at: Date.now(),
      });
      options.deliver(formatInboxEntry(message), markRead);
    }
  })().catch((error: unknown) => {
    if (!controller.signal.aborted) report('watching the lead inbox', error);
  });

  return {
    teamName,
    mailbox,
    broker,
    monitor,
    members: () => [...members.values()],
    adopt(member) {
      const entry: LeadMember = { ...member, ended: member.handle.exited.then(() => undefined) };
      members.set(member.name, entry);
      void monitor.watch(member.handle).catch(() => undefined);
    },
    liveMembers: () => [...members.values()].filter((member) => member.handle.isAlive()),
    async isIdle(member) {
      if (member.idleAt === undefined) return false;
      const entries = await mailbox.readAll(member.name);
      if (entries.some((entry) => !entry.read)) return false;
      const newest = entries.reduce((latest, entry) => {
        const at = Date.parse(entry.timestamp);
        return Number.isFinite(at) && at > latest ? at : latest;
      }, 0);
      return newest <= member.idleAt;
    },
    leadHasUnread: async () => (await mailbox.readUnread(TEAM_LEAD_NAME)).length > 0,
    async wroteShutdownApproved(member) {
      const entries = await mailbox.readAll(TEAM_LEAD_NAME);
      return entries.some(
        (entry) =>
          entry.from === member.name &&
          parseProtocolMessage(entry.text)?.type === 'shutdown_approved',
      );
    },
    async requestShutdown(member, reason) {
      await mailbox.sendProtocolMessage(member.name, TEAM_LEAD_NAME, {
        type: 'shutdown_request',
        requestId: createShutdownRequestId(member.name),
        from: TEAM_LEAD_NAME,
        reason,
        timestamp: new Date().toISOString(),
      });
    },
    async stop() {
      unsubscribe();
      controller.abort('lead team closed');
      await watching;
      await monitor.close();
    },
  };
}
