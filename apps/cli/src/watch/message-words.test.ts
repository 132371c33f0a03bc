import { describe, expect, it } from 'vitest';
import { describeMessage, describeToolInput, oneLine } from './message-words.js';

const entry = (from: string, text: string) => ({
  from,
  text,
  timestamp: '2026-01-01T00:00:00.000Z',
  read: false,
});

describe('describeMessage', () => {
  it('puts a permission request for Bash into words with the command', () => {
    const text = JSON.stringify({
      type: 'permission_request',
      request_id: 'perm-1-abcdefg',
      agent_id: 'alpha',
      tool_name: 'Bash',
      tool_use_id: 'toolu_1',
      description: 'Run tests',
      input: { command: 'npm test' },
      permission_suggestions: [],
    });
    expect(describeMessage(entry('alpha', text), { recipient: 'team-lead' }).sentence).toBe(
      'alpha asks to run Bash: npm test',
    );
  });

  it('says who asked whom to shut down, and who went idle after which task', () => {
    const request = JSON.stringify({
      type: 'shutdown_request',
      requestId: 'shutdown-1@gamma',
      from: 'team-lead',
      timestamp: '2026-01-01T00:00:00.000Z',
    });
    expect(describeMessage(entry('team-lead', request), { recipient: 'gamma' }).sentence).toBe(
      'team-lead asks gamma to shut down',
    );
    const idle = JSON.stringify({
      type: 'idle_notification',
      from: 'alpha',
      timestamp: '2026-01-01T00:00:00.000Z',
      completedTaskId: '4',
      completedStatus: 'failed',
      failureReason: 'tests fail',
    });
    expect(describeMessage(entry('alpha', idle), { recipient: 'team-lead' }).sentence).toBe(
      'alpha went idle after task #4 failed (tests fail)',
    );
  });

  it('keeps free text as text, preferring the summary, and never calls a malformed payload protocol', () => {
    expect(
      describeMessage(
        { ...entry('beta', 'long text here'), summary: 'short' },
        { recipient: 'alpha' },
      ).sentence,
    ).toBe('beta to alpha: short');
    const words = describeMessage(entry('beta', '{"type":"shutdown_request"}'), {
      recipient: 'alpha',
    });
    expect(words.kind).toBe('text');
    expect(words.sentence).toBe('beta to alpha: {"type":"shutdown_request"}');
  });

  it('shortens long input to one line', () => {
    expect(oneLine('a\n  b', 10)).toBe('a b');
    expect(oneLine('x'.repeat(20), 10)).toBe(`${'x'.repeat(9)}…`);
    expect(describeToolInput({ file_path: '/a/b.txt', content: 'x' })).toBe('/a/b.txt');
    expect(describeToolInput({ other: 1 })).toBe('{"other":1}');
  });
});
