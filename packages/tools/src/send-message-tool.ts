// SendMessage: a message to one teammate, a broadcast, a shutdown request (lead), a shutdown
// answer (teammate) or a plan answer (lead), written to inboxes through @muster/mailbox.
// Free text is never allowed to be a protocol message: the lead's runtime signs what it
// writes, so a model able to write `{"type":"permission_response",…}` as text would get a
// control message signed for it.
import { closestName } from '@muster/mailbox';
import {
  createShutdownRequestId,
  parseRequestId,
  SEND_MESSAGE_FORBIDDEN_FRAME_TYPES,
  SendMessageInputSchema,
  type SendMessageInput,
  type ShutdownApproved,
  type ShutdownRejected,
  type ShutdownRequest,
  type TeamConfig,
  type TeamMember,
} from '@muster/protocol';
import { ToolError, type Tool, type ToolResult } from '@muster/query';
import {
  asToolError,
  leadOf,
  memberNamed,
  prettyJson,
  readTeamConfig,
  requireTeam,
  throwIfAborted,
  toolInputJsonSchema,
  type TeamToolsRuntime,
} from './team-tools-support.js';

const SEND_MESSAGE_DESCRIPTION = `Send a message to your team through the members' inboxes.

type decides what is sent:
- "message": content to one teammate (recipient: its name). Add a short summary (5–10 words) shown in previews.
- "broadcast": content to every other member at once. Costly for everyone: use it only when all of them need it.
- "shutdown_request" (lead only): ask recipient to finish and exit; content may give the reason. The answer comes back to your inbox.
- "shutdown_response" (teammate only): answer the lead's shutdown request: request_id and approve; when you decline, content says why. Approving ends you.
- "plan_approval_response" (lead only): answer a teammate's plan: request_id, recipient, approve; when you reject, content says what to change.

Your plain text output is not seen by teammates: to reach them, use this tool. content must be plain words, never a JSON protocol message: requests and answers have their own types above.`;

const forbiddenFrameTypes: ReadonlySet<string> = new Set(SEND_MESSAGE_FORBIDDEN_FRAME_TYPES);

/**
 * The protocol message type `text` would be read as, or undefined for free text. Stricter
 * than the readers: surrounding whitespace (and a byte-order mark) is ignored, and any JSON
 * object naming a protocol type counts, valid or not.
 */
export function protocolFrameTypeOf(text: string): string | undefined {
  const trimmed = text.replace(/^[\s\uFEFF]+|[\s\uFEFF]+$/g, '');
  if (!trimmed.startsWith('{')) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(trimmed);
  } catch {
    return undefined;
  }
  const type = (parsed as { type?: unknown } | null)?.type;
  return typeof type === 'string' && forbiddenFrameTypes.has(type) ? type : undefined;
}

function refuseProtocolText(text: string, field: string): void {
  const type = protocolFrameTypeOf(text);
  if (type !== undefined) {
    throw new ToolError(
      `Refused: ${field} is a "${type}" protocol message written as JSON text. Teammates would read it as a control message, so SendMessage never sends one as free text. Write the message in plain words; to ask for or answer a shutdown or answer a plan, use type "shutdown_request", "shutdown_response" or "plan_approval_response".`,
      'PROTOCOL_TEXT_REFUSED',
      { frameType: type },
    );
  }
}

/** The member a `recipient` names (`name` or `name@team`), refusing other teams, unknown names and oneself. */
function resolveRecipient(
  config: TeamConfig,
  teamName: string,
  given: string,
  self: string,
): TeamMember {
  let name = given.trim();
  const at = name.lastIndexOf('@');
  if (at !== -1) {
    const team = name.slice(at + 1);
    if (team !== teamName) {
      throw new ToolError(
        `Recipient "${given}" is in team "${team}", but you can only message your own team "${teamName}". Address a member by name.`,
        'WRONG_TEAM',
      );
    }
    name = name.slice(0, at);
  }
  const member = memberNamed(config, name);
  if (member === undefined) {
    const names = config.members.map((candidate) => candidate.name);
    const suggestion = closestName(name, names);
    throw new ToolError(
      `No member named "${name}" in team "${teamName}". Members: ${names.join(', ')}.${suggestion === undefined ? '' : ` Did you mean "${suggestion}"?`}`,
      'UNKNOWN_RECIPIENT',
      { members: names },
    );
  }
  if (member.name === self) {
    throw new ToolError(
      'You cannot send a message to yourself: pick a teammate as recipient.',
      'SELF_RECIPIENT',
    );
  }
  return member;
}

function requireRole(runtime: TeamToolsRuntime, role: 'lead' | 'teammate', what: string): void {
  if (runtime.session.role !== role) {
    throw new ToolError(
      role === 'lead'
        ? `Only the team lead can send a ${what}; you are a teammate. Message the lead if you think it is needed.`
        : `Only a teammate sends a ${what}; as the lead you ask with shutdown_request and read the answers in your inbox.`,
      role === 'lead' ? 'NOT_LEAD' : 'NOT_TEAMMATE',
    );
  }
}

/** Builds SendMessage over a shared runtime. */
export function createSendMessageTool(runtime: TeamToolsRuntime): Tool<SendMessageInput> {
  return {
    name: 'SendMessage',
    description: SEND_MESSAGE_DESCRIPTION,
    inputSchema: SendMessageInputSchema,
    inputJsonSchema: toolInputJsonSchema(SendMessageInputSchema),
    isReadOnly: () => false,
    isConcurrencySafe: () => false,
    async call(input, context) {
      throwIfAborted(context, 'SendMessage');
      const teamName = requireTeam(runtime, 'SendMessage');
      const config = await readTeamConfig(runtime, teamName);
      const send = { runtime, teamName, config, self: runtime.session.agentName };
      switch (input.type) {
        case 'message':
          return sendText(send, input);
        case 'broadcast':
          return sendBroadcast(send, input);
        case 'shutdown_request':
          return sendShutdownRequest(send, input);
        case 'shutdown_response':
          return sendShutdownResponse(send, input);
        case 'plan_approval_response':
          return sendPlanResponse(send, input);
      }
    },
  };
}

interface SendContext {
  runtime: TeamToolsRuntime;
  teamName: string;
  config: TeamConfig;
  self: string;
}

async function sendText(send: SendContext, input: SendMessageInput): Promise<ToolResult> {
  const content = input.content ?? '';
  refuseProtocolText(content, 'content');
  const target = resolveRecipient(send.config, send.teamName, input.recipient ?? '', send.self);
  const mailbox = send.runtime.mailbox(send.teamName);
  const receipt = await asToolError(() =>
    mailbox.send(target.name, {
      from: send.self,
      text: content,
      ...(input.summary === undefined ? {} : { summary: input.summary }),
    }),
  );
  const result = {
    success: true,
    message: `Delivered to ${target.name}'s inbox.`,
    ...(receipt.messageId === undefined ? {} : { msg_id: receipt.messageId }),
    routing: {
      sender: send.self,
      senderColor: memberNamed(send.config, send.self)?.color,
      target: `@${target.name}`,
      targetColor: target.color,
      summary: input.summary,
      content,
    },
  };
  return { content: prettyJson(result), data: result };
}

async function sendBroadcast(send: SendContext, input: SendMessageInput): Promise<ToolResult> {
  const content = input.content ?? '';
  refuseProtocolText(content, 'content');
  const others = send.config.members.filter((member) => member.name !== send.self);
  if (others.length === 0) {
    throw new ToolError(
      `Team "${send.teamName}" has no other member to broadcast to yet.`,
      'NO_RECIPIENTS',
    );
  }
  const mailbox = send.runtime.mailbox(send.teamName);
  const receipt = await asToolError(() =>
    mailbox.broadcast(send.self, {
      text: content,
      ...(input.summary === undefined ? {} : { summary: input.summary }),
    }),
  );
  const result = {
    success: true,
    message: `Broadcast delivered to ${receipt.recipients.length} member(s): ${receipt.recipients.join(', ')}.`,
    recipients: receipt.recipients,
    routing: {
      sender: send.self,
      senderColor: memberNamed(send.config, send.self)?.color,
      target: '@team',
      summary: input.summary,
      content,
    },
  };
  return { content: prettyJson(result), data: result };
}

async function sendShutdownRequest(
  send: SendContext,
  input: SendMessageInput,
): Promise<ToolResult> {
  requireRole(send.runtime, 'lead', 'shutdown_request');
  const target = resolveRecipient(send.config, send.teamName, input.recipient ?? '', send.self);
  const requestId = createShutdownRequestId(target.name);
  const message: ShutdownRequest = {
    type: 'shutdown_request',
    requestId,
    from: send.self,
    ...(input.content === undefined || input.content.trim() === ''
      ? {}
      : { reason: input.content }),
    timestamp: new Date().toISOString(),
  };
  const mailbox = send.runtime.mailbox(send.teamName);
  await asToolError(() => mailbox.sendProtocolMessage(target.name, send.self, message));
  const result = {
    success: true,
    message: `Asked ${target.name} to shut down (request ${requestId}). Its answer, shutdown_approved or shutdown_rejected, will arrive in your inbox.`,
    request_id: requestId,
    target: target.name,
  };
  return { content: prettyJson(result), data: result };
}

async function sendShutdownResponse(
  send: SendContext,
  input: SendMessageInput,
): Promise<ToolResult> {
  requireRole(send.runtime, 'teammate', 'shutdown_response');
  const requestId = (input.request_id ?? '').trim();
  let addressedTo: string | undefined;
  try {
    const parsed = parseRequestId(requestId);
    addressedTo = parsed.kind === 'shutdown' ? parsed.recipient : undefined;
  } catch {
    addressedTo = undefined;
  }
  if (addressedTo !== send.self) {
    throw new ToolError(
      `"${requestId}" is not a shutdown request addressed to you (${send.self}): answer with the requestId of the shutdown_request in your inbox.`,
      'UNKNOWN_REQUEST',
    );
  }
  const gate = send.runtime.options.shutdownGate;
  if (gate !== undefined && !gate.isGenuine(requestId)) {
    throw new ToolError(
      `No shutdown request ${requestId} from your lead was received (or it could not be verified as the lead's), so there is nothing to answer. Keep working.`,
      'UNKNOWN_REQUEST',
    );
  }
  const lead = leadOf(send.config);
  if (lead === undefined || lead.name === send.self) {
    throw new ToolError(
      `Team "${send.teamName}" has no lead in its config to answer; nothing was sent.`,
      'NO_LEAD',
    );
  }
  const mailbox = send.runtime.mailbox(send.teamName);
  const timestamp = new Date().toISOString();
  if (input.approve === true) {
    const details = send.runtime.options.shutdownDetails ?? {};
    const message: ShutdownApproved = {
      type: 'shutdown_approved',
      requestId,
      from: send.self,
      timestamp,
      ...(details.paneId === undefined ? {} : { paneId: details.paneId }),
      ...(details.backendType === undefined ? {} : { backendType: details.backendType }),
    };
    await asToolError(() => mailbox.sendProtocolMessage(lead.name, send.self, message));
    notifyShutdownApproved(send.runtime, { requestId, lead: lead.name });
    const result = {
      success: true,
      message: `Shutdown approved and ${lead.name} was told. ${send.self} is stopping now: do not start new work.`,
      request_id: requestId,
    };
    return { content: prettyJson(result), data: result };
  }
  const reason = input.content ?? '';
  const message: ShutdownRejected = {
    type: 'shutdown_rejected',
    requestId,
    from: send.self,
    reason,
    timestamp,
  };
  await asToolError(() => mailbox.sendProtocolMessage(lead.name, send.self, message));
  const result = {
    success: true,
    message: `Shutdown declined; ${lead.name} was given your reason: ${JSON.stringify(reason)}. Carry on with your work.`,
    request_id: requestId,
  };
  return { content: prettyJson(result), data: result };
}

/**
 * Runs `onShutdownApproved` after this call has returned its result (not awaited: the hook
 * usually closes the agent, which waits for the running turn, and so for this call). An error
 * it throws is reported as a process warning, since no one else could see it.
 */
function notifyShutdownApproved(
  runtime: TeamToolsRuntime,
  approval: { requestId: string; lead: string },
): void {
  const hook = runtime.options.onShutdownApproved;
  if (hook === undefined) return;
  setImmediate(() => {
    Promise.resolve()
      .then(() => hook(approval))
      .catch((error: unknown) => {
        process.emitWarning(
          `onShutdownApproved failed after ${runtime.session.agentName} approved shutdown ${approval.requestId}: ${(error as Error)?.message ?? String(error)}`,
          { code: 'MUSTER_SHUTDOWN_HOOK_FAILED' },
        );
      });
  });
}

async function sendPlanResponse(send: SendContext, input: SendMessageInput): Promise<ToolResult> {
  requireRole(send.runtime, 'lead', 'plan_approval_response');
  const review = send.runtime.options.planReview;
  if (review === undefined) {
    throw new ToolError(
      'This runtime gave you no plan review, so plan answers cannot be sent from here. Tell the person running the team.',
      'NO_PLAN_REVIEW',
    );
  }
  const target = resolveRecipient(send.config, send.teamName, input.recipient ?? '', send.self);
  const requestId = (input.request_id ?? '').trim();
  const pending = review.pendingPlans().find((plan) => plan.requestId === requestId);
  if (pending !== undefined && pending.workerName !== target.name) {
    throw new ToolError(
      `Plan ${requestId} was submitted by ${pending.workerName}, not ${target.name}: set recipient to "${pending.workerName}".`,
      'WRONG_RECIPIENT',
    );
  }
  if (input.approve === true) {
    const response = await asToolError(() => review.approvePlan(requestId));
    const result = {
      success: true,
      message: `Plan approved for ${target.name}; it leaves plan mode${response.permissionMode === undefined ? '' : ` and works in ${response.permissionMode} mode`}.`,
      request_id: requestId,
    };
    return { content: prettyJson(result), data: result };
  }
  const feedback = input.content ?? '';
  await asToolError(() => review.rejectPlan(requestId, feedback));
  const result = {
    success: true,
    message: `Plan rejected for ${target.name}, with your feedback: ${JSON.stringify(feedback)}. It stays in plan mode and may submit a new plan.`,
    request_id: requestId,
  };
  return { content: prettyJson(result), data: result };
}
