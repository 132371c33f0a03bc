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
}

/** An inbox entry in words, for the feed and `muster inbox`. */
export interface MessageWords {
  /** `text`, or the protocol message's `type`. */
  kind: string;
  /** One line a person reads: "alpha asks to run Bash: npm test". */
  sentence: string;
  /** The whole content for the detail view: the free text, or the important fields. */
  detail: string;
}

const MAXIMUM_INLINE = 80;

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
      return message.summary ? `${sentence}: ${oneLine(message.summary)}` : sentence;
    }
    case 'shutdown_request':
      return withReason(`${message.from} asks ${recipient} to shut down`, message.reason);
    case 'shutdown_approved':
      return `${message.from} agreed to shut down`;
    case 'shutdown_rejected':
      return withReason(`${message.from} refused to shut down`, message.reason);
    case 'plan_approval_request':
      return withReason(
        `${message.from} asks ${recipient} to approve a plan`,
        firstMeaningfulLine(message.planContent),
      );
    case 'plan_approval_response':
      return message.approved
        ? `${recipient}'s plan was approved${message.permissionMode ? ` (mode ${message.permissionMode})` : ''}`
        : withReason(`${recipient}'s plan was rejected`, message.feedback);
    case 'permission_request':
      return `${message.agent_id} asks to run ${message.tool_name}: ${describeToolInput(message.input)}`;
    case 'permission_response': {
      const request = context.permissionRequests?.get(message.request_id);
      const what = request
        ? `${request.tool_name}: ${describeToolInput(request.input)}`
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
  if (content.kind === 'protocol') {
    return {
      kind: content.message.type,
      sentence: describeProtocolMessage(content.message, message.from, context),
      detail: describeProtocolDetail(content.message),
    };
  }
  const preview = message.summary ? message.summary : message.text;
  return {
    kind: 'text',
    sentence: `${message.from} to ${context.recipient}: ${oneLine(preview)}`,
    detail: message.text,
  };
}
