// The pane display of a process teammate: streamed text, one line per tool call, colors only
// on a terminal without NO_COLOR, and nothing from the model that could drive the terminal.
import { describe, expect, it } from 'vitest';
import { createPaneDisplay } from './process-teammate-display.js';
import type { TeamEvent } from './team-event.js';

function show(events: TeamEvent[], options: { isTTY: boolean; noColor?: boolean }): string {
  let written = '';
  const display = createPaneDisplay({
    output: { write: (text: string) => (written += text), isTTY: options.isTTY },
    environment: options.noColor === true ? { NO_COLOR: '1' } : {},
  });
  for (const event of events) display.onEvent(event);
  display.line('── done ──', 'end');
  return written;
}

const at = 0;
const agent = (event: Extract<TeamEvent, { type: 'agent' }>['event']): TeamEvent => ({
  type: 'agent',
  agentName: 'carol',
  event,
  at,
});
const events: TeamEvent[] = [
  agent({ type: 'text_delta', text: 'Reading \u001b]0;pwned\u0007the ' }),
  agent({ type: 'text_delta', text: 'file.\u001b[2J' }),
  agent({
    type: 'tool_call_start',
    toolUseId: 't1',
    name: 'Bash',
    input: { command: 'ls -la\nrm' },
  }),
  agent({
    type: 'tool_call_end',
    toolUseId: 't1',
    name: 'Bash',
    allowed: true,
    isError: false,
    durationMs: 3,
    resultText: '\ntotal 8\nREADME.md',
  }),
  { type: 'member_state', agentName: 'carol', state: 'idle', at },
];

describe('process teammate pane display', () => {
  it('streams text, prints one line per tool call with its first result line, strips control characters', () => {
    expect(show(events, { isTTY: false })).toBe(
      ['Reading ]0;pwnedthe file.[2J', '● Bash(ls -la) → total 8', '[idle]', '── done ──', ''].join(
        '\n',
      ),
    );
  });

  it('colors lines on a terminal, and not with NO_COLOR', () => {
    expect(show(events, { isTTY: true })).toContain('\u001b[36m● Bash(ls -la) → total 8\u001b[0m');
    expect(show(events, { isTTY: true, noColor: true })).not.toContain('\u001b[');
  });
});
