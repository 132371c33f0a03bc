// What a headless team run prints: `stream-json` (every TeamEvent as one JSON line as it
// happens, then a result line), `json` (the result as one object at the end) or `text` (the
// lead's final text on stdout; denials and problems on stderr as they happen). Every denial of
// an ask is in the output whatever the format. A scripted demo says so on every line.
import type { RunOutcome, TeamEvent } from '@muster/agents';
import type { TokenUsage } from '@muster/query';
import type { OutputStreams } from '../output-streams.js';
import { escapeJsonForTerminal, escapeTerminalText } from '../terminal-text.js';
import type { HeadlessFlags } from './headless-flags.js';

/** What marks every line a scripted demo prints: the replies come from a script, not a model. */
export const SCRIPTED_DEMO_LABEL = 'scripted demo: @muster/scripted-model, not a model';

/** An ask that nobody allowed, as the output reports it. */
export interface HeadlessDenial {
  askId: string;
  agentName: string;
  kind: 'permission' | 'plan';
  toolName?: string;
  description?: string;
  by: string;
  message?: string;
}

/** The result of a headless run: the final stream-json line, the json output. */
export interface HeadlessResult {
  type: 'result';
  status: RunOutcome['status'];
  exitCode: number;
  text: string;
  turns: number;
  team?: string;
  shutdown: RunOutcome['shutdown'];
  /** Tokens per agent (the lead and every teammate), the latest total of each. */
  usage: Record<string, TokenUsage>;
  denials: HeadlessDenial[];
  error?: { code: string; message: string };
  scriptedDemo?: string;
}

/** Receives the team's events while it runs, then prints the result. */
export interface HeadlessOutput {
  onEvent(event: TeamEvent): void;
  finish(
    result: Omit<HeadlessResult, 'type' | 'usage' | 'denials' | 'scriptedDemo'>,
  ): HeadlessResult;
}

/** Creates the output of one headless run. */
export function createHeadlessOutput(options: {
  format: HeadlessFlags['outputFormat'];
  streams: OutputStreams;
  scriptedDemo?: boolean;
}): HeadlessOutput {
  const { format, streams } = options;
  const demo = options.scriptedDemo === true;
  const asks = new Map<string, Extract<TeamEvent, { type: 'ask' }>>();
  const denials: HeadlessDenial[] = [];
  const usage: Record<string, TokenUsage> = {};
  const writeLine = (value: unknown) => {
    const line = demo ? { ...(value as object), scriptedDemo: SCRIPTED_DEMO_LABEL } : value;
    streams.stdout.write(`${escapeJsonForTerminal(JSON.stringify(line))}\n`);
  };
  const say = (text: string) =>
    streams.stderr.write(`${escapeTerminalText(text, { keepLineBreaks: false })}\n`);

  if (demo) {
    const banner = `[${SCRIPTED_DEMO_LABEL}] Every reply in this run comes from the demo-team script of @muster/scripted-model (a test double), not from a model; the files, git, tests and the team are real.`;
    if (format === 'stream-json')
      writeLine({ type: 'notice', level: 'info', text: banner, at: Date.now() });
    else say(banner);
  }

  return {
    onEvent(event) {
      if (event.type === 'ask') asks.set(event.askId, event);
      if (event.type === 'usage') usage[event.agentName] = event.usage;
      if (event.type === 'agent' && event.event.type === 'usage') {
        usage[event.agentName] = event.event.agent;
      }
      if (event.type === 'ask_answer' && event.behavior === 'deny') {
        const ask = asks.get(event.askId);
        const denial: HeadlessDenial = {
          askId: event.askId,
          agentName: ask?.agentName ?? 'unknown',
          kind: ask?.kind ?? 'permission',
          ...(ask?.toolName === undefined ? {} : { toolName: ask.toolName }),
          ...(ask?.description === undefined ? {} : { description: ask.description }),
          by: event.by,
          ...(event.message === undefined ? {} : { message: event.message }),
        };
        denials.push(denial);
        if (format === 'text') {
          const what = denial.toolName ?? denial.kind;
          const input =
            ask?.input === undefined ? '' : ` ${JSON.stringify(ask.input).slice(0, 160)}`;
          say(
            `${demo ? '[scripted demo] ' : ''}muster: denied ${denial.agentName}'s ${what}${input} (${denial.by}): ${denial.message ?? 'no reason given'}`,
          );
        }
      }
      if (format === 'text' && event.type === 'ask_answer' && event.behavior === 'allow') {
        const ask = asks.get(event.askId);
        const what = ask?.toolName ?? ask?.kind ?? 'ask';
        const input = ask?.input === undefined ? '' : ` ${JSON.stringify(ask.input).slice(0, 160)}`;
        say(
          `${demo ? '[scripted demo] ' : ''}muster: allowed ${ask?.agentName ?? 'unknown'}'s ${what}${input} (${event.by})`,
        );
      }
      if (format === 'text') {
        const line = storyLine(event) ?? (demo ? gitLine(event) : undefined);
        if (line !== undefined) say(`${demo ? '[scripted demo] ' : ''}muster: ${line}`);
      }
      if (format === 'text' && event.type === 'notice' && event.level !== 'info') {
        say(
          `${demo ? '[scripted demo] ' : ''}muster: ${event.level}: ${event.agentName === undefined ? '' : `${event.agentName}: `}${event.text}`,
        );
      }
      if (format === 'stream-json') writeLine(event);
    },
    finish(partial) {
      const result: HeadlessResult = {
        type: 'result',
        ...partial,
        usage,
        denials,
        ...(demo ? { scriptedDemo: SCRIPTED_DEMO_LABEL } : {}),
      };
      if (format === 'stream-json') {
        writeLine(result);
      } else if (format === 'json') {
        streams.stdout.write(`${escapeJsonForTerminal(JSON.stringify(result, null, 2))}\n`);
      } else {
        const lines = result.text === '' ? [] : result.text.split('\n');
        for (const line of lines) {
          const safe = escapeTerminalText(line, { keepLineBreaks: false });
          streams.stdout.write(`${demo ? `[scripted demo] ${safe}` : safe}\n`);
        }
      }
      return result;
    },
  };
}

/** Text mode tells the team's story on stderr, one line per step a person would want to see. */
function storyLine(event: TeamEvent): string | undefined {
  if (event.type === 'spawn' && event.path === 'teammate') {
    return `${event.parentName} spawned ${event.agentName} (${event.agentType}, ${event.backendType ?? 'backend unknown'}${event.worktreePath === undefined ? '' : `, in its own git worktree ${event.worktreePath}`})`;
  }
  // A teammate's worktree: kept (a warning, printed below) or removed when it ended.
  if (
    event.type === 'notice' &&
    event.level === 'info' &&
    /worktree .* was removed\.$/.test(event.text)
  ) {
    return event.text;
  }
  if (event.type === 'spawn_end' && event.path === 'teammate') {
    return `${event.agentName} ended (${event.status})`;
  }
  if (event.type !== 'message') return undefined;
  switch (event.protocolType) {
    case undefined:
      return `${event.from} → ${event.to}: ${(event.summary ?? event.text).slice(0, 120)}`;
    case 'plan_approval_request':
      return `${event.from} asks ${event.to} to approve a plan`;
    case 'shutdown_approved':
      return `${event.from} agreed to shut down`;
    case 'shutdown_rejected':
      return `${event.from} declined to shut down`;
    default:
      return undefined;
  }
}

/** The demo's git steps (alice's commit in her worktree, the lead's merge), one line each. */
function gitLine(event: TeamEvent): string | undefined {
  if (event.type !== 'agent' || event.event.type !== 'assistant_message') return undefined;
  const commands = event.event.message.content.flatMap((block) =>
    block.type === 'tool_use' &&
    block.name === 'Bash' &&
    typeof (block.input as { command?: unknown }).command === 'string' &&
    /^git\s/.test((block.input as { command: string }).command)
      ? [(block.input as { command: string }).command]
      : [],
  );
  return commands.length === 0 ? undefined : `${event.agentName} runs ${commands.join('; ')}`;
}
