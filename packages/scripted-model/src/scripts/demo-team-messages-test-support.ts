/**
 * Test support (not exported): the simulated runtime's SendMessage, delivering messages and
 * protocol payloads (shutdown, plan approval) to inboxes the way Claude Code 2.1.45 writes them.
 */
import type { AgentKind, Message } from './demo-team-test-support.js';

/** One inbox entry. */
export interface InboxEntry {
  from: string;
  text: string;
  summary?: string;
  color?: string;
}
/** One simulated agent. */
export interface Agent {
  name: string;
  kind: AgentKind;
  color?: string;
  messages: Message[];
  inbox: InboxEntry[];
  pending: boolean;
  ended: boolean;
  planApproved: boolean;
}
/** One task of the simulated list. */
export interface TaskRecord {
  id: string;
  subject: string;
  status: string;
  owner?: string;
  blockedBy: string[];
  internal: boolean;
}

/** What SendMessage needs of the simulated runtime. */
export interface MessageWorld {
  /** Every agent by name. */
  agents: Map<string, Agent>;
  /** Appends an entry to an agent's inbox. */
  deliver: (to: string, entry: InboxEntry) => void;
  /** Where plan answers are recorded. */
  record: { planResponses: { recipient: string; approve: boolean; feedback?: string }[] };
  /** A fresh number for request ids. */
  nextId: () => number;
}

const json = (value: unknown): string => JSON.stringify(value);
const now = (): string => new Date().toISOString();

/** Executes one SendMessage call of `agent`. */
export function sendMessage(
  agent: Agent,
  input: Record<string, unknown>,
  world: MessageWorld,
): { content: string; isError?: boolean } {
  const { agents, deliver, record } = world;
  const recipient = String(input.recipient ?? '');
  const color = agent.color === undefined ? {} : { color: agent.color };
  switch (input.type) {
    case 'message':
      deliver(recipient, {
        from: agent.name,
        text: String(input.content),
        summary: String(input.summary ?? ''),
        ...color,
      });
      return {
        content: json({ success: true, message: `Message sent to ${recipient}'s inbox` }),
      };
    case 'shutdown_request': {
      const requestId = `shutdown-${world.nextId()}@${recipient}`;
      deliver(recipient, {
        from: agent.name,
        text: json({
          type: 'shutdown_request',
          requestId,
          from: agent.name,
          reason: input.content,
          timestamp: now(),
        }),
      });
      return {
        content: json({
          success: true,
          message: `Shutdown request sent to ${recipient}`,
          request_id: requestId,
          target: recipient,
        }),
      };
    }
    case 'shutdown_response':
      if (input.approve === true) {
        deliver('team-lead', {
          from: agent.name,
          text: json({
            type: 'shutdown_approved',
            requestId: input.request_id,
            from: agent.name,
            timestamp: now(),
            paneId: 'in-process',
            backendType: 'in-process',
          }),
          ...color,
        });
        agent.ended = true;
      }
      return { content: json({ success: true, message: 'Shutdown approved' }) };
    case 'plan_approval_response': {
      const approve = input.approve === true;
      record.planResponses.push({
        recipient,
        approve,
        ...(approve ? {} : { feedback: String(input.content) }),
      });
      const target = agents.get(recipient);
      if (target !== undefined && approve) target.planApproved = true;
      deliver(recipient, {
        from: 'team-lead',
        text: json({
          type: 'plan_approval_response',
          requestId: input.request_id,
          approved: approve,
          ...(approve ? {} : { feedback: input.content }),
          timestamp: now(),
          ...(approve ? { permissionMode: 'default' } : {}),
        }),
      });
      return {
        content: json({
          success: true,
          message: `Plan ${approve ? 'approved' : 'rejected'} for ${recipient}`,
        }),
      };
    }
    default:
      return { content: `Unknown message type ${String(input.type)}`, isError: true };
  }
}
