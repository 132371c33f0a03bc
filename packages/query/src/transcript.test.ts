import { appendFileSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { makeTempDirectory } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import { createSecretRedactor } from './secrets.js';
import { createTranscript } from './transcript.js';
import { readTranscript } from './transcript-reader.js';

const identity = { name: 'alice', id: 'alice@team', teamName: 'team' };
const usage = {
  inputTokens: 3,
  cacheCreationInputTokens: 0,
  cacheReadInputTokens: 10,
  outputTokens: 4,
};

describe('createTranscript', () => {
  it('appends one redacted JSON line per entry, at once, in a 0600 file inside a new folder', async () => {
    const folder = await makeTempDirectory();
    const file = path.join(folder, 'agents', 'alice', 'transcript.jsonl');
    const transcript = createTranscript(file, {
      redact: createSecretRedactor(['sk-ant-secret-key']),
    });
    transcript.append({ type: 'agent', identity, model: 'sonnet' });
    transcript.append({ type: 'message', role: 'user', content: 'my key is sk-ant-secret-key' });
    // Written synchronously: readable before anything else happens.
    expect(readFileSync(file, 'utf8').split('\n')).toHaveLength(3);
    transcript.append({
      type: 'message',
      role: 'assistant',
      content: [
        {
          type: 'tool_use',
          id: 'toolu_1',
          name: 'Bash',
          input: { command: 'echo sk-ant-secret-key' },
        },
      ],
      requestId: 'req_1',
      usage,
      stopReason: 'tool_use',
      at: '2026-01-01T00:00:00.000Z',
    });
    transcript.close();
    transcript.close();
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines.join('\n')).not.toContain('sk-ant-secret-key');
    expect(JSON.parse(lines[1]!)).toMatchObject({
      type: 'message',
      role: 'user',
      content: 'my key is [redacted]',
    });
    expect(JSON.parse(lines[2]!)).toEqual({
      type: 'message',
      role: 'assistant',
      content: [
        { type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'echo [redacted]' } },
      ],
      requestId: 'req_1',
      usage,
      stopReason: 'tool_use',
      at: '2026-01-01T00:00:00.000Z',
    });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(() => transcript.append({ type: 'compaction', summary: 'x' })).toThrow(/is closed/);
  });

  it('refuses bad entries and options with a message saying what to give', async () => {
    const folder = await makeTempDirectory();
    expect(() => createTranscript(path.join(folder, 't.jsonl'), {} as never)).toThrow(
      /redact must be a function/,
    );
    expect(() => createTranscript('', { redact: (text) => text })).toThrow(/non-empty file path/);
    const transcript = createTranscript(path.join(folder, 't.jsonl'), { redact: (text) => text });
    expect(() => transcript.append({ type: 'note' } as never)).toThrow(/unknown entry type "note"/);
    expect(() =>
      transcript.append({ type: 'message', role: 'robot', content: 'x' } as never),
    ).toThrow(/needs role "user" or "assistant"/);
    transcript.close();
  });

  it('refuses to write through a symbolic link', async () => {
    const folder = await makeTempDirectory();
    writeFileSync(path.join(folder, 'target'), '');
    symlinkSync(path.join(folder, 'target'), path.join(folder, 'link.jsonl'));
    expect(() =>
      createTranscript(path.join(folder, 'link.jsonl'), { redact: (text) => text }),
    ).toThrow(/Cannot open the transcript .*link\.jsonl/);
  });
});

describe('readTranscript', () => {
  it('gives back the conversation, skips and reports a torn last line, and a reopened file continues on a new line', async () => {
    const folder = await makeTempDirectory();
    const file = path.join(folder, 't.jsonl');
    const transcript = createTranscript(file, { redact: (text) => text });
    transcript.append({ type: 'agent', identity, model: 'sonnet' });
    transcript.append({ type: 'message', role: 'user', content: 'hi' });
    transcript.append({
      type: 'message',
      role: 'assistant',
      content: [{ type: 'text', text: 'hello' }],
    });
    transcript.close();
    appendFileSync(file, '{"type":"message","role":"user","cont'); // a crash mid-write
    const torn = readTranscript(file);
    expect(torn.messages).toEqual([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: [{ type: 'text', text: 'hello' }] },
    ]);
    expect(torn.agent).toEqual({ identity, model: 'sonnet' });
    expect(torn.skipped).toEqual([
      { line: 4, reason: expect.stringMatching(/^not JSON/), last: true },
    ]);
    expect(torn.entries).toHaveLength(3);

    const resumed = createTranscript(file, { redact: (text) => text });
    resumed.append({ type: 'message', role: 'user', content: 'again' });
    resumed.close();
    const after = readTranscript(file);
    expect(after.messages.at(-1)).toEqual({ role: 'user', content: 'again' });
    // Two user entries in a row are one message (the loop adds blocks to a user message).
    const more = createTranscript(file, { redact: (text) => text });
    more.append({ type: 'message', role: 'user', content: [{ type: 'text', text: 'and more' }] });
    more.close();
    expect(readTranscript(file).messages.at(-1)).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'again' },
        { type: 'text', text: 'and more' },
      ],
    });
    expect(after.skipped).toEqual([
      { line: 4, reason: expect.stringMatching(/^not JSON/), last: false },
    ]);
  });

  it('starts the conversation over at a compaction and lists tool calls still unanswered', async () => {
    const folder = await makeTempDirectory();
    const file = path.join(folder, 't.jsonl');
    const transcript = createTranscript(file, { redact: (text) => text });
    transcript.append({ type: 'message', role: 'user', content: 'old' });
    transcript.append({
      type: 'compaction',
      summary: 'We read a file.',
      tokensBefore: 900,
      tokensAfter: 40,
    });
    transcript.append({ type: 'message', role: 'user', content: 'Summary: we read a file.' });
    transcript.append({
      type: 'message',
      role: 'assistant',
      content: [
        { type: 'tool_use', id: 'toolu_a', name: 'Read', input: {} },
        { type: 'tool_use', id: 'toolu_b', name: 'Read', input: {} },
      ],
    });
    transcript.close();
    const contents = readTranscript(file);
    expect(contents.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(contents.unansweredToolUseIds).toEqual(['toolu_a', 'toolu_b']);
    expect(contents.entries.map((entry) => entry.type)).toEqual([
      'message',
      'compaction',
      'message',
      'message',
    ]);
  });

  it('reports a line that is JSON but not an entry, and fails clearly on a missing file', async () => {
    const folder = await makeTempDirectory();
    const file = path.join(folder, 't.jsonl');
    writeFileSync(
      file,
      '{"type":"message","role":"user"}\n{"type":"message","role":"user","content":"ok","at":"x"}\n',
    );
    const contents = readTranscript(file);
    expect(contents.messages).toEqual([{ role: 'user', content: 'ok' }]);
    expect(contents.skipped[0]).toMatchObject({
      line: 1,
      last: false,
      reason: expect.stringMatching(/not a transcript entry/),
    });
    expect(() => readTranscript(path.join(folder, 'missing.jsonl'))).toThrow(
      /Cannot read the transcript .*missing\.jsonl/,
    );
  });
});
