// The texts a teammate's model reads, against a line Claude Code 2.1.330 was observed to send
// (copied from its FORMAT.md into test/fixtures/inbox-delivery/).
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import {
  formatInboxEntry,
  formatPlanAnswer,
  formatShutdownRequest,
  formatSpawnPrompt,
  joinDeliveries,
  takeInPriorityOrder,
  type PendingDelivery,
} from './inbox-delivery.js';

const fixture = new URL(
  '../test/fixtures/inbox-delivery/teammate-message-2.1.330.txt',
  import.meta.url,
);

describe('inbox delivery texts', () => {
  it('renders an inbox entry exactly as Claude Code 2.1.330 shows it to the model', async () => {
    const reference = (await readFile(fixture, 'utf8')).replace(/\n$/, '');
    expect(
      formatInboxEntry({
        from: 'alpha',
        color: 'green',
        summary: 'Alpha started task 1',
        text: 'Started task 1 (greeting module).',
      }),
    ).toBe(reference);
  });

  it('wraps the spawn prompt as a message from the lead with the description as summary', () => {
    expect(formatSpawnPrompt('Do it.', 'Greeting module')).toBe(
      '<teammate-message teammate_id="team-lead" summary="Greeting module">\nDo it.\n</teammate-message>',
    );
    expect(formatSpawnPrompt('Do it.')).toBe(
      '<teammate-message teammate_id="team-lead">\nDo it.\n</teammate-message>',
    );
    expect(() => formatSpawnPrompt('')).toThrow(/non-empty/);
  });

  it('puts the answering SendMessage inputs inside the shutdown request tag', () => {
    const text = formatShutdownRequest(
      { from: 'team-lead', text: '{"type":"shutdown_request","requestId":"shutdown-1@alice"}' },
      { requestId: 'shutdown-1@alice' },
    );
    expect(
      text.startsWith('<teammate-message teammate_id="team-lead">\n{"type":"shutdown_request"'),
    ).toBe(true);
    expect(text).toContain(
      '{"type":"shutdown_response","request_id":"shutdown-1@alice","approve":true}',
    );
    expect(text).toContain('"approve":false');
    expect(text.endsWith('</teammate-message>')).toBe(true);
  });

  it('gives plan answers as plain text', () => {
    expect(formatPlanAnswer({ approved: true })).toBe(
      '[Plan Approved] You can now proceed with implementation',
    );
    expect(formatPlanAnswer({ approved: false, feedback: 'Add tests.' })).toBe(
      '[Plan Rejected] Add tests.',
    );
  });

  it('takes shutdown requests, then the lead, then peers, then tasks, each in arrival order', () => {
    const item = (rank: PendingDelivery['rank'], order: number): PendingDelivery => ({
      rank,
      order,
      text: `${rank}:${order}`,
    });
    const queue = [item(2, 0), item(3, 1), item(1, 2), item(2, 3), item(0, 4), item(1, 5)];
    expect(takeInPriorityOrder(queue, 1).map((entry) => entry.text)).toEqual(['0:4', '1:2', '1:5']);
    expect(queue.map((entry) => entry.text)).toEqual(['2:0', '3:1', '2:3']);
    const rest = takeInPriorityOrder(queue);
    expect(joinDeliveries(rest)).toBe('2:0\n\n2:3\n\n3:1');
    expect(queue).toEqual([]);
  });
});
