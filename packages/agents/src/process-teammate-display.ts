// What a process teammate prints in its pane: the model's text as it streams, one line per
// tool call with the first line of its result, state changes, notices, and a closing line.
// Everything that came from the model or a tool is stripped of control characters first, so
// nothing it says can move the cursor, retitle the terminal or hide earlier lines.
import type { TeamEvent, TeamEventSink } from './team-event.js';

/** Where the display writes (a stream, or anything with `write`). */
export interface DisplayOutput {
  write(text: string): unknown;
  isTTY?: boolean;
}

/** Options of {@link createPaneDisplay}. */
export interface PaneDisplayOptions {
  output: DisplayOutput;
  /** Use colors (default: the output is a terminal and `NO_COLOR` is not set). */
  color?: boolean;
  /** The environment `NO_COLOR` is read from. */
  environment?: Readonly<Record<string, string | undefined>>;
}

/** A teammate's pane display. */
export interface PaneDisplay {
  /** Shows one event of the teammate's stream. */
  onEvent: TeamEventSink;
  /** Prints one line of its own (the start, the end), after finishing any open text line. */
  line(text: string, tone?: Tone): void;
}

/** How a line is colored. */
export type Tone = 'plain' | 'dim' | 'tool' | 'error' | 'state' | 'end';

const CODES: Record<Tone, string> = {
  plain: '',
  dim: '\u001b[2m',
  tool: '\u001b[36m',
  error: '\u001b[31m',
  state: '\u001b[33m',
  end: '\u001b[1;32m',
};

/** `text` without terminal control characters (tabs and, when `keepLineBreaks`, newlines stay). */
export function printableText(text: string, keepLineBreaks = false): string {
  let result = '';
  for (const character of text.replace(/\r\n?/g, '\n')) {
    const code = character.charCodeAt(0);
    // C0 controls, DEL and C1 controls (ESC starts every terminal escape sequence).
    if (code >= 0x20 && (code < 0x7f || code > 0x9f)) result += character;
    else if (character === '\t') result += '\t';
    else if (character === '\n') result += keepLineBreaks ? '\n' : ' ';
  }
  return result;
}

/** The first non-empty line of `text`, at most `limit` characters. */
export function firstLine(text: string, limit = 100): string {
  const line =
    text
      .split('\n')
      .map((entry) => entry.trim())
      .find((entry) => entry !== '') ?? '';
  const clean = printableText(line);
  return clean.length > limit ? `${clean.slice(0, limit - 1)}…` : clean;
}

/** The first line of a tool result; a JSON result (SendMessage's) shown compact on one line. */
function resultLine(text: string): string {
  const trimmed = text.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      return firstLine(JSON.stringify(JSON.parse(trimmed)));
    } catch {
      // Not JSON after all: its first line it is.
    }
  }
  return firstLine(text);
}

/** A short view of a tool's input: its most telling string field. */
function inputSummary(input: unknown): string {
  if (input === null || typeof input !== 'object') return '';
  const fields = input as Record<string, unknown>;
  for (const key of [
    'command',
    'file_path',
    'pattern',
    'recipient',
    'subject',
    'taskId',
    'type',
    'path',
  ]) {
    const value = fields[key];
    if (typeof value === 'string' && value !== '') return firstLine(value, 60);
  }
  const first = Object.values(fields).find((value) => typeof value === 'string');
  return typeof first === 'string' ? firstLine(first, 60) : '';
}

/** Creates the display of one teammate's pane. */
export function createPaneDisplay(options: PaneDisplayOptions): PaneDisplay {
  const environment = options.environment ?? {};
  const noColor = environment.NO_COLOR !== undefined && environment.NO_COLOR !== '';
  const color = options.color ?? (!noColor && options.output.isTTY === true);
  const output = options.output;
  const tools = new Map<string, string>();
  let midLine = false;

  const paint = (text: string, tone: Tone): string =>
    color && tone !== 'plain' ? `${CODES[tone]}${text}\u001b[0m` : text;
  const endText = (): void => {
    if (midLine) output.write('\n');
    midLine = false;
  };
  const line = (text: string, tone: Tone = 'plain'): void => {
    endText();
    output.write(`${paint(printableText(text), tone)}\n`);
  };

  const onAgentEvent = (event: Extract<TeamEvent, { type: 'agent' }>['event']): void => {
    switch (event.type) {
      case 'text_delta': {
        const text = printableText(event.text, true);
        if (text === '') return;
        output.write(text);
        midLine = !text.endsWith('\n');
        return;
      }
      case 'tool_call_start':
        tools.set(event.toolUseId, inputSummary(event.input));
        return;
      case 'tool_call_end': {
        const summary = tools.get(event.toolUseId) ?? '';
        tools.delete(event.toolUseId);
        const result = resultLine(event.resultText);
        const verdict = !event.allowed ? 'refused: ' : event.isError ? 'error: ' : '';
        line(
          `● ${event.name}(${summary}) → ${verdict}${result === '' ? '(no output)' : result}`,
          event.isError || !event.allowed ? 'error' : 'tool',
        );
        return;
      }
      case 'retry':
        line(
          `… retrying the model request (attempt ${event.attempt}, ${event.kind}): ${firstLine(event.message)}`,
          'dim',
        );
        return;
      case 'compaction':
        line(
          `… conversation compacted (${event.tokensBefore} → ${event.tokensAfter} tokens)`,
          'dim',
        );
        return;
      case 'turn_end':
        endText();
        if (event.reason === 'failed' && event.error !== undefined) {
          line(`✗ turn failed: ${firstLine(event.error.message, 200)}`, 'error');
        }
        return;
      default:
        return;
    }
  };

  return {
    line,
    onEvent(event) {
      switch (event.type) {
        case 'agent':
          onAgentEvent(event.event);
          return;
        case 'member_state':
          line(
            `[${event.state}]${event.detail === undefined ? '' : ` ${firstLine(event.detail, 200)}`}`,
            'state',
          );
          return;
        case 'notice':
          line(
            `${event.level === 'info' ? 'note' : event.level}: ${firstLine(event.text, 300)}`,
            event.level === 'error' ? 'error' : 'dim',
          );
          return;
        case 'message':
          if (event.protocolType === 'idle_notification') line(`→ idle; told ${event.to}`, 'dim');
          return;
        default:
          return;
      }
    },
  };
}
