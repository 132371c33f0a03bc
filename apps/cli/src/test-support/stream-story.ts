/** One line of `--output-format stream-json`. */
type StreamLine = Record<string, unknown> & { type: string };

const cut = (value: unknown, length = 240): string => {
  const text = (typeof value === 'string' ? value : (JSON.stringify(value) ?? '')).replace(
    /\s*\n\s*/g,
    ' ⏎ ',
  );
  return text.length > length ? `${text.slice(0, length)}…` : text;
};

/** One readable line for a stream-json line, or undefined for the noise (deltas, usage). */
function storyLine(line: StreamLine): string | undefined {
  const at = typeof line.at === 'number' ? new Date(line.at).toISOString().slice(11, 23) : '';
  switch (line.type) {
    case 'agent': {
      const event = line.event as Record<string, unknown> & { type: string };
      if (event.type === 'tool_call_start')
        return `${at} ${String(line.agentName)} calls ${String(event.name)} ${cut(event.input, 160)}`;
      if (event.type === 'tool_call_end')
        return `${at} ${String(line.agentName)} ${String(event.name)} → ${event.isError === true ? 'ERROR ' : ''}${cut(event.resultText, 160)}`;
      if (event.type === 'input_delivered')
        return `${at} ${String(line.agentName)} got mid-turn input (${String(event.blocks)} block(s)) with its tool results`;
      if (event.type === 'turn_end')
        return `${at} ${String(line.agentName)} turn ended (${String(event.reason)}): ${cut(event.text, 160)}`;
      return undefined;
    }
    case 'usage':
      return undefined;
    case 'message':
      return `${at} message ${String(line.from)} → ${String(line.to)}: ${cut(line.text)}`;
    case 'ask':
      return `${at} ask ${String(line.askId)} from ${String(line.agentName)}: ${String(line.toolName)} ${cut(line.input, 120)}`;
    case 'ask_answer':
      return `${at} answer ${String(line.askId)}: ${String(line.behavior)} by ${String(line.by)}`;
    default: {
      const { type, at: _at, scriptedDemo: _demo, ...rest } = line;
      return `${at} ${type} ${cut(rest)}`;
    }
  }
}

/**
 * The story of a `muster … --output-format stream-json` run, one line per notice, spawn,
 * message, ask, answer, tool call, mid-turn delivery and turn end (text deltas and usage
 * left out): the message of an assertion on such a run, so that a failure explains itself.
 */
export function streamStory(lines: readonly StreamLine[]): string {
  return ['stream-json of the run:', ...lines.flatMap((line) => storyLine(line) ?? [])].join('\n');
}
