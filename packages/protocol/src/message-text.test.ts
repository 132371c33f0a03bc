import { describe, expect, expectTypeOf, it } from 'vitest';
import { listReferenceInboxEntries } from '../test/reference-folder.js';
import { awkwardStrings } from '../test/hostile-names.js';
import { MusterError } from './errors.js';
import {
  escapeAttributeValue,
  formatProtocolMessage,
  parseMessageContent,
  parseProtocolMessage,
  renderTeammateMessage,
  renderTeammateMessages,
} from './message-text.js';
import { PROTOCOL_MESSAGE_TYPES, type ProtocolMessage } from './protocol-message.js';

const referenceEntries = listReferenceInboxEntries();
const protocolEntries = referenceEntries.filter(({ entry }) => entry.text.startsWith('{'));
const plainEntries = referenceEntries.filter(({ entry }) => !entry.text.startsWith('{'));

describe('parseMessageContent', () => {
  it('finds both plain and protocol entries in the reference files', () => {
    expect(protocolEntries.length).toBeGreaterThan(20);
    expect(plainEntries.length).toBeGreaterThan(3);
  });

  it.each(protocolEntries.map(({ source, entry }) => [source, entry.text]))(
    'reads %s as a typed protocol message',
    (_source, text) => {
      const content = parseMessageContent(text);
      expect(content.kind).toBe('protocol');
      if (content.kind !== 'protocol') return;
      expect(content.message.type).toBe((JSON.parse(text) as { type: string }).type);
      expect(PROTOCOL_MESSAGE_TYPES).toContain(content.message.type);
    },
  );

  it.each(plainEntries.map(({ source, entry }) => [source, entry.text]))(
    'reads %s as free text',
    (_source, text) => {
      expect(parseMessageContent(text)).toEqual({ kind: 'text', text });
    },
  );

  it('treats anything that is not a valid protocol message as free text, with no error', () => {
    for (const text of [
      '',
      'hello',
      '{',
      '{not json}',
      '[1,2,3]',
      'null',
      '42',
      '"a string"',
      '{}',
      '{"type":"unknown_kind","from":"x"}',
      '{"type":42}',
      '{"type":"idle_notification"}extra',
      '  \n ',
    ]) {
      const content = parseMessageContent(text);
      expect(content.kind, text).toBe('text');
      expect(content).toMatchObject({ kind: 'text', text });
    }
  });

  it('keeps the problem when JSON names a known type but does not match its schema', () => {
    const content = parseMessageContent('{"type":"shutdown_request","from":"team-lead"}');
    expect(content.kind).toBe('text');
    if (content.kind !== 'text') return;
    expect(content.protocolProblem).toMatch(/^shutdown_request: /);
    expect(content.protocolProblem).toMatch(/requestId/);
  });

  it('never throws, whatever the text', () => {
    const samples = [
      ...awkwardStrings(300, 5),
      ...awkwardStrings(100, 9).map((noise) => `{"type":"idle_notification",${noise}`),
      '{"type":"permission_request","input":' + '['.repeat(5000) + ']'.repeat(5000) + '}',
      '{"__proto__":{"type":"shutdown_request"}}',
    ];
    for (const text of samples) {
      expect(() => parseMessageContent(text)).not.toThrow();
    }
  });

  it('accepts leading whitespace before a protocol payload', () => {
    const text = '  {"type":"mode_set_request","mode":"plan","from":"team-lead"}';
    expect(parseProtocolMessage(text)).toEqual({
      type: 'mode_set_request',
      mode: 'plan',
      from: 'team-lead',
    });
  });

  it('gives typed messages the compiler can narrow on type', () => {
    const message = parseProtocolMessage(
      '{"type":"shutdown_request","requestId":"shutdown-1@alpha","from":"team-lead","timestamp":"2026-01-01T00:00:00.000Z"}',
    );
    expect(message?.type).toBe('shutdown_request');
    if (message?.type === 'shutdown_request') {
      expectTypeOf(message.requestId).toEqualTypeOf<string>();
      expect(message.requestId).toBe('shutdown-1@alpha');
    }
  });

  it('returns the original object, unknown keys and their order included', () => {
    const text =
      '{"type":"idle_notification","from":"alpha","x-new":{"b":1,"a":2},"timestamp":"2026-01-01T00:00:00.000Z"}';
    const message = parseProtocolMessage(text);
    expect(Object.keys(message ?? {})).toEqual(['type', 'from', 'x-new', 'timestamp']);
    expect(JSON.stringify(message)).toBe(text);
  });
});

describe('formatProtocolMessage', () => {
  it.each(protocolEntries.map(({ source, entry }) => [source, entry.text]))(
    'gives back the exact text of %s',
    (_source, text) => {
      const message = parseProtocolMessage(text);
      expect(message).toBeDefined();
      expect(formatProtocolMessage(message!)).toBe(text);
    },
  );

  it('refuses a malformed message with SCHEMA_MISMATCH naming the field', () => {
    const malformed = {
      type: 'shutdown_rejected',
      requestId: 'shutdown-1@alpha',
      from: 'alpha',
      timestamp: '2026-01-01T00:00:00.000Z',
    } as unknown as ProtocolMessage;
    let thrown: unknown;
    try {
      formatProtocolMessage(malformed);
    } catch (error) {
      thrown = error;
    }
    expect(MusterError.hasCode(thrown, 'SCHEMA_MISMATCH')).toBe(true);
    expect((thrown as Error).message).toMatch(/shutdown_rejected.*reason/);
  });
});

describe('renderTeammateMessage', () => {
  it('renders an entry exactly as the model sees it', () => {
    expect(
      renderTeammateMessage({
        from: 'alpha',
        text: 'Started task 1 (greeting module).',
        summary: 'Alpha started task 1',
        color: 'blue',
      }),
    ).toBe(
      '<teammate-message teammate_id="alpha" color="blue" summary="Alpha started task 1">\nStarted task 1 (greeting module).\n</teammate-message>',
    );
  });

  it('leaves out color and summary when absent (the lead has no color)', () => {
    expect(renderTeammateMessage({ from: 'team-lead', text: 'Go.' })).toBe(
      '<teammate-message teammate_id="team-lead">\nGo.\n</teammate-message>',
    );
  });

  it('escapes attribute values so they cannot break out of the tag', () => {
    expect(
      renderTeammateMessage({
        from: 'a"b<c>&d',
        text: 'body stays as written: <b> & "quotes"',
        summary: 'two\nlines\r"quoted"',
        color: 'blue" onload="x',
      }),
    ).toBe(
      '<teammate-message teammate_id="a&quot;b&lt;c&gt;&amp;d" color="blue&quot; onload=&quot;x" summary="two&#10;lines&#13;&quot;quoted&quot;">\nbody stays as written: <b> & "quotes"\n</teammate-message>',
    );
  });

  it('escapes "&" first, so existing entities are not double-decoded', () => {
    expect(escapeAttributeValue('&quot;')).toBe('&amp;quot;');
    expect(escapeAttributeValue('plain')).toBe('plain');
  });

  it('joins a batch with a blank line', () => {
    expect(
      renderTeammateMessages([
        { from: 'alpha', text: 'one', color: 'blue' },
        { from: 'beta', text: 'two' },
      ]),
    ).toBe(
      '<teammate-message teammate_id="alpha" color="blue">\none\n</teammate-message>\n\n<teammate-message teammate_id="beta">\ntwo\n</teammate-message>',
    );
  });
});
