import type { InboxMessage } from '@muster/protocol';
import { describe, expect, it } from 'vitest';
import { planCompaction } from './compaction.js';
import {
  buildInboxMessage,
  messageDigest,
  parseInboxText,
  serializeInbox,
} from './inbox-format.js';
import { MailboxError } from './mailbox-error.js';
import { priorityRank, unreadInPriorityOrder } from './priority.js';
import { applyQueuedOperations } from './queued-operations.js';
import { closestName } from './team-directory.js';

const at = (second: number) => `2026-11-22T12:00:${String(second).padStart(2, '0')}.000Z`;
const entry = (from: string, text: string, second: number, read = false): InboxMessage => ({
  from,
  text,
  timestamp: at(second),
  read,
});

describe('inbox entries', () => {
  it("builds entries in Claude Code's key order and serializes with 2 spaces, no newline", () => {
    const message = buildInboxMessage({
      color: 'blue',
      timestamp: at(1),
      summary: 'Hi',
      text: 'hello',
      from: 'alpha',
    });
    expect(Object.keys(message)).toEqual(['from', 'text', 'summary', 'timestamp', 'color', 'read']);
    expect(serializeInbox([message])).toBe(
      '[\n  {\n    "from": "alpha",\n    "text": "hello",\n    "summary": "Hi",\n' +
        `    "timestamp": "${at(1)}",\n    "color": "blue",\n    "read": false\n  }\n]`,
    );
  });

  it('rejects a malformed message with INVALID_MESSAGE', () => {
    const attempt = () => buildInboxMessage({ from: '', text: 'x', timestamp: 'yesterday' });
    expect(attempt).toThrow(MailboxError);
    expect(attempt).toThrow(/timestamp|from/);
  });

  it('keeps unknown fields in place when an inbox is parsed and written back', () => {
    const text =
      '[\n  {\n    "from": "a",\n    "future": 1,\n    "text": "t",\n' +
      `    "timestamp": "${at(2)}",\n    "read": true,\n    "extra": [\n      1\n    ]\n  }\n]`;
    expect(serializeInbox(parseInboxText(text, 'inbox.json'))).toBe(text);
  });

  it('refuses text that is not an inbox', () => {
    expect(() => parseInboxText('[{"from":"a"', 'inbox.json')).toThrow(/not valid JSON/);
    expect(() => parseInboxText('{"from":"a"}', 'inbox.json')).toThrow(/expected format/);
  });

  it('digests ignore the read flag but not the text', () => {
    const unread = entry('a', 'one', 1);
    expect(messageDigest({ ...unread, read: true })).toBe(messageDigest(unread));
    expect(messageDigest({ ...unread, text: 'two' })).not.toBe(messageDigest(unread));
  });
});

describe('queued operations', () => {
  const inbox = [entry('a', 'one', 1), entry('b', 'two', 2), entry('c', 'three', 3)];

  it('appends only at the end and marks in place, never moving an entry', () => {
    const applied = applyQueuedOperations(
      inbox,
      [
        { kind: 'append', messages: [entry('d', 'four', 4)] },
        { kind: 'mark', indices: [1] },
        { kind: 'mark', entries: [{ index: 0, digest: messageDigest(inbox[2]!) }] },
      ],
      () => true,
    );
    expect(applied.messages.map((message) => [message.text, message.read])).toEqual([
      ['one', false],
      ['two', true],
      ['three', true],
      ['four', false],
    ]);
    expect(applied).toMatchObject({ appended: 1, marked: 2, archived: [] });
    expect(inbox.every((message) => !message.read)).toBe(true);
  });

  it('compacts a claimed inbox after a mark request, never after appends alone', () => {
    const many = Array.from({ length: 10 }, (_, index) => entry('a', `m${index}`, index, true));
    const appendOnly = applyQueuedOperations(
      many,
      [{ kind: 'append', messages: [entry('b', 'new', 20)] }],
      () => true,
    );
    expect(appendOnly.archived).toHaveLength(0);
    const marked = applyQueuedOperations(
      appendOnly.messages,
      [{ kind: 'mark', all: true, keepRead: 2 }],
      () => true,
    );
    expect(marked.archived.map((message) => message.text)).toEqual([
      'm0',
      'm1',
      'm2',
      'm3',
      'm4',
      'm5',
      'm6',
      'm7',
      'm8',
    ]);
    expect(marked.messages.map((message) => message.text)).toEqual(['m9', 'new']);
    const unclaimed = applyQueuedOperations(
      appendOnly.messages,
      [{ kind: 'mark', all: true, keepRead: 2 }],
      () => false,
    );
    expect(unclaimed.archived).toHaveLength(0);
  });

  it('plans compactions that keep unread entries and order', () => {
    const mixed = [entry('a', '1', 1, true), entry('a', '2', 2), entry('a', '3', 3, true)];
    expect(planCompaction(mixed, 1, 2).kept.map((message) => message.text)).toEqual([
      '1',
      '2',
      '3',
    ]);
    const plan = planCompaction(mixed, 0, 0);
    expect(plan.kept.map((message) => message.text)).toEqual(['2']);
    expect(plan.archived.map((message) => message.text)).toEqual(['1', '3']);
  });
});

describe('priority', () => {
  it('puts shutdown requests first, then the lead, then peers, each in arrival order', () => {
    const shutdown = JSON.stringify({
      type: 'shutdown_request',
      requestId: 'shutdown-1@alpha',
      from: 'team-lead',
      reason: 'done',
      timestamp: at(9),
    });
    const order = unreadInPriorityOrder(
      [
        entry('beta', 'peer 1', 1),
        entry('team-lead', 'lead 1', 2),
        entry('gamma', 'peer 2', 3, true),
        entry('gamma', 'peer 3', 4),
        entry('team-lead', shutdown, 5),
        entry('team-lead', 'lead 2', 6),
      ],
      'team-lead',
    );
    expect(order.map((item) => item.index)).toEqual([4, 1, 5, 0, 3]);
    expect(order[0]!.content).toMatchObject({
      kind: 'protocol',
      message: { type: 'shutdown_request' },
    });
    expect(order[1]!.content).toEqual({ kind: 'text', text: 'lead 1' });
    expect(priorityRank(order[3]!, 'team-lead')).toBe(2);
  });
});

describe('closest member name', () => {
  it('suggests a likely typo and nothing for an unrelated name', () => {
    expect(closestName('alpah', ['team-lead', 'alpha', 'beta'])).toBe('alpha');
    expect(closestName('Beta', ['team-lead', 'alpha', 'beta'])).toBe('beta');
    expect(closestName('zzzzzzzz', ['team-lead', 'alpha', 'beta'])).toBeUndefined();
  });
});
