import {
  parseMessageContent,
  type InboxMessage,
  type PermissionRequest,
  type ProtocolMessage,
} from '@muster/protocol';

/** What the sentence for a message needs beyond the message itself. */
export interface MessageWordsContext {
  /** Whose inbox the message is in. */
  recipient: string;
  /** Earlier permission requests by `request_id`, so an answer can name the tool. */
  permissionRequests?: ReadonlyMap<string, PermissionRequest>;
  /**
   * Plan requests (`requestId`) approved by an earlier response: a later rejection of the
   * same request is one the teammate ignores as stale (Claude Code 2.1.330 approves first).
   */
  approvedPlans?: ReadonlySet<string>;
}

/** An inbox entry in words, for the feed and `muster inbox`. */
export interface MessageWords {
  /** `text`, or the protocol message's `type`. */
  kind: string;
  /** One line a person reads: "alpha asks to run Bash: npm test". */
  sentence: string;
  /** The whole content for the detail view: the free text, or the important fields. */
  detail: string;
  /**
   * The entry carries a `lead_sig` (Claude Code 2.1.330 signs what its lead writes to a pane
   * teammate). Shown as "signed": the signature is there; checking it needs the teammate's key.
   */
  signed: boolean;
}

/** The marker Claude Code 2.1.330 appends to an `idle_notification.result` it cut short. */
const RESULT_TRUNCATED = /\s*\[result truncated[^\]]*\]\s*$/;

/** Fields Claude Code 2.1.330 added to the protocol messages, read whatever the types say. */
interface Version2Fields {
  result?: unknown;
  planDigest?: unknown;
  tool_use_id?: unknown;
  approved_request?: { tool_name?: unknown; tool_use_id?: unknown };
  paneId?: unknown;
  backendType?: unknown;
}

/** A string field of a message, or undefined. */
function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

const MAXIMUM_INLINE = 80;

/** Separates what a teammate did from what it said, in plain ASCII. */
const symbolDash = '-';

/** Shortens text to one line of at most `length` characters. */
export function oneLine(text: string, length = MAXIMUM_INLINE): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= length ? flat : `${flat.slice(0, length - 1)}…`;
}

/** The most telling part of a tool call's input: a command, a path, a URL, or the JSON. */
export function describeToolInput(input: Record<string, unknown>): string {
  for (const key of ['command', 'file_path', 'path', 'notebook_path', 'url', 'pattern', 'query']) {
    const value = input[key];
    if (typeof value === 'string' && value.trim() !== '') return oneLine(value, 60);
  }
  return oneLine(JSON.stringify(input), 60);
}

function firstMeaningfulLine(text: string): string {
  const line = text
    .split('\n')
    .map((candidate) => candidate.replace(/^#+\s*/, '').trim())
    .find((candidate) => candidate !== '');
  return oneLine(line ?? '', 60);
}

function withReason(sentence: string, reason: string | undefined): string {
  return reason && reason.trim() !== '' ? `${sentence}: ${oneLine(reason)}` : sentence;
}

function describeProtocolMessage(
  message: ProtocolMessage,
  sender: string,
  context: MessageWordsContext,
): string {
  const { recipient } = context;
  const added = message as Version2Fields;
  switch (message.type) {
    case 'idle_notification': {
      let sentence = `${message.from} went idle`;
      if (message.completedTaskId !== undefined) {
        const failed =
          message.completedStatus !== undefined && message.completedStatus !== 'success';
        sentence += failed
          ? ` after task #${message.completedTaskId} failed`
          : ` after finishing task #${message.completedTaskId}`;
        if (failed && message.failureReason) sentence += ` (${oneLine(message.failureReason, 50)})`;
      }
      // After a message to a peer, 2.1.330 puts "[to <name>] <summary>" here: kept as it is.
      if (message.summary) sentence += `: ${oneLine(message.summary)}`;
      const result = text(added.result);
      if (result !== undefined) {
        const cut = RESULT_TRUNCATED.test(result);
        const said = oneLine(result.replace(RESULT_TRUNCATED, ''), 60);
        sentence += ` ${symbolDash} said: ${said}${cut && !said.endsWith('…') ? '…' : ''}`;
      }
      return sentence;
    }
    case 'shutdown_request':
      return withReason(`${message.from} asks ${recipient} to shut down`, message.reason);
    case 'shutdown_approved': {
      const pane = text(added.paneId);
      const backend = text(added.backendType);
      // In-process teammates send paneId "in-process" with backendType "in-process".
      const where = [pane !== undefined && pane !== backend && `pane ${pane}`, backend]
        .filter(Boolean)
        .join(', ');
      return `${message.from} agreed to shut down${where ? ` (${where})` : ''}`;
    }
    case 'shutdown_rejected':
      return withReason(`${message.from} refused to shut down`, message.reason);
    case 'plan_approval_request':
      return withReason(
        `${message.from} asks ${recipient} to approve a plan`,
        firstMeaningfulLine(message.planContent),
      );
    case 'plan_approval_response': {
      const digest = text(added.planDigest);
      if (message.approved) {
        const details = [
          digest && `plan sha256 ${digest.slice(0, 12)}…`,
          message.permissionMode && `mode ${message.permissionMode}`,
        ].filter(Boolean);
        // 2.1.330's lead approves by itself, with the plan's digest, before its model sees it.
        return `${recipient}'s plan was approved${digest ? ' automatically' : ''}${details.length ? ` (${details.join(', ')})` : ''}`;
      }
      if (context.approvedPlans?.has(message.requestId)) {
        return withReason(
          `${sender} rejected ${recipient}'s plan after it was approved; ${recipient} ignores it as stale`,
          message.feedback,
        );
      }
      return withReason(`${recipient}'s plan was rejected`, message.feedback);
    }
    case 'permission_request':
      return `${message.agent_id} asks to run ${message.tool_name}: ${describeToolInput(message.input)}`;
    case 'permission_response': {
      const request = context.permissionRequests?.get(message.request_id);
      // 2.1.330 names the tool in approved_request (the request itself is gone from the
      // lead's inbox within a second).
      const tool = text(added.approved_request?.tool_name);
      const what = request
        ? `${request.tool_name}: ${describeToolInput(request.input)}`
        : tool !== undefined
          ? `${tool} (request ${message.request_id})`
          : `request ${message.request_id}`;
      return message.subtype === 'success'
        ? `${sender} allowed ${recipient} to run ${what}`
        : withReason(`${sender} refused to let ${recipient} run ${what}`, message.error);
    }
    case 'sandbox_permission_request':
      return `${message.workerName} asks to reach ${message.hostPattern.host}`;
    case 'sandbox_permission_response':
      return `${sender} ${message.allow ? 'allowed' : 'denied'} ${recipient} to reach ${message.host}`;
    case 'task_assignment':
      return message.assignedBy === recipient
        ? `${recipient} took task #${message.taskId}: ${oneLine(message.subject, 60)}`
        : `${message.assignedBy} assigned task #${message.taskId} to ${recipient}: ${oneLine(message.subject, 60)}`;
    case 'task_completed':
      return `${message.from} completed task #${message.taskId}: ${oneLine(message.taskSubject, 60)}`;
    case 'mode_set_request':
      return `${message.from} switched ${recipient} to ${message.mode} mode`;
    case 'team_permission_update':
      return `${message.from ?? sender} allowed the whole team to use ${message.toolName} in ${message.directoryPath}`;
  }
}

function describeProtocolDetail(message: ProtocolMessage): string {
  switch (message.type) {
    case 'idle_notification': {
      const result = text((message as Version2Fields).result);
      const fields = JSON.stringify(message, null, 2);
      return result === undefined ? fields : `${result}\n\n${fields}`;
    }
    case 'plan_approval_request':
      return `Plan file: ${message.planFilePath}\n\n${message.planContent}`;
    case 'permission_request':
      return `${message.description}\n\nTool: ${message.tool_name}\nInput: ${JSON.stringify(message.input, null, 2)}`;
    default:
      return JSON.stringify(message, null, 2);
  }
}

/**
 * Puts an inbox entry into words. Protocol messages become sentences ("beta's plan was
 * rejected: …"); free text becomes "alpha to team-lead: …" with the summary when there is one.
 */
export function describeMessage(message: InboxMessage, context: MessageWordsContext): MessageWords {
  const content = parseMessageContent(message.text);
  const signed = typeof (message as { lead_sig?: unknown }).lead_sig === 'string';
  const mark = signed ? ' (signed)' : '';
  if (content.kind === 'protocol') {
    return {
      kind: content.message.type,
      sentence: `${describeProtocolMessage(content.message, message.from, context)}${mark}`,
      detail: describeProtocolDetail(content.message),
      signed,
    };
  }
  const preview = message.summary ? message.summary : message.text;
  return {
    kind: 'text',
    sentence: `${message.from} to ${context.recipient}${mark}: ${oneLine(preview)}`,
    detail: message.text,
    signed,
  };
}
