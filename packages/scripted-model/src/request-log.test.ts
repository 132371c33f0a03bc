import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createPromptCache } from './prompt-cache.js';
import { conversationBody, markLastBlock } from './prompt-cache-test-support.js';
import { createRequestLog } from './request-log.js';
import type { RequestLogRecord } from './types.js';

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0))
    rmSync(directory, { recursive: true, force: true });
});

function temporaryFile(name: string): string {
  const directory = mkdtempSync(join(tmpdir(), 'scripted-model-log-'));
  directories.push(directory);
  return join(directory, 'nested', name);
}

function recordFor(index: number, content: string): RequestLogRecord {
  const account = createPromptCache().account(
    conversationBody(markLastBlock([{ role: 'user', content }])),
  );
  return {
    index,
    receivedAt: 1_700_000_000_000 + index,
    path: '/v1/messages',
    model: 'claude-sonnet-4-6',
    stream: true,
    toolsSystemHash: account.toolsSystemHash,
    breakpointHashes: account.breakpoints.map((breakpoint) => breakpoint.hash),
    usage: account.usage,
    stopReason: 'end_turn',
    status: 200,
  };
}

describe('createRequestLog', () => {
  it('appends one parseable JSON line per request carrying the hashes, readable before close', async () => {
    const file = temporaryFile('requests.jsonl');
    const log = createRequestLog({ file });
    const first = recordFor(0, 'first');
    const second = recordFor(1, 'second');
    log.record(first);
    expect(readFileSync(file, 'utf8').split('\n')).toHaveLength(2);
    log.record(second);
    await log.close();
    const lines = readFileSync(file, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as RequestLogRecord);
    expect(lines).toEqual([first, second]);
    expect(lines[0]!.toolsSystemHash).toMatch(/^[0-9a-f]{64}$/);
    expect(lines[0]!.toolsSystemHash).toBe(lines[1]!.toolsSystemHash);
    expect(lines[0]!.breakpointHashes).toHaveLength(1);
    expect(lines[0]!.breakpointHashes[0]).not.toBe(lines[1]!.breakpointHashes[0]);
    expect(log.records()).toEqual([first, second]);
  });

  it('appends to an existing file and keeps records in memory without one', async () => {
    const file = temporaryFile('append.jsonl');
    const before = createRequestLog({ file });
    before.record(recordFor(0, 'a'));
    await before.close();
    const after = createRequestLog({ file });
    after.record(recordFor(1, 'b'));
    await after.close();
    expect(readFileSync(file, 'utf8').trimEnd().split('\n')).toHaveLength(2);

    const memory = createRequestLog();
    memory.record(recordFor(0, 'a'));
    const copy = memory.records();
    copy[0]!.model = 'changed';
    expect(memory.records()[0]!.model).toBe('claude-sonnet-4-6');
    await memory.close();
    await memory.close();
  });

  it('refuses a malformed record and recording after close, naming the problem', async () => {
    const log = createRequestLog({ file: temporaryFile('refused.jsonl') });
    expect(() =>
      log.record({ ...recordFor(0, 'a'), toolsSystemHash: 3 as unknown as string }),
    ).toThrow(/field "toolsSystemHash" must be a string/);
    expect(() =>
      log.record({ ...recordFor(0, 'a'), breakpointHashes: [1] as unknown as string[] }),
    ).toThrow(/breakpointHashes/);
    await log.close();
    expect(() => log.record(recordFor(1, 'b'))).toThrow(/is closed/);
    expect(log.records()).toEqual([]);
  });

  it('says which file it cannot open', () => {
    const file = temporaryFile('x.jsonl');
    const blocker = join(file, '..', '..', 'blocker');
    createRequestLog({ file: blocker }).close();
    expect(() => createRequestLog({ file: join(blocker, 'inside.jsonl') })).toThrow(
      /cannot open the request log ".*inside\.jsonl"/,
    );
  });
});
