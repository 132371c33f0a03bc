import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempDirectory, runNodeProcesses } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import { createMailbox } from './mailbox.js';
import { storedTextCounts } from './test-fixtures/team.js';

const writerScript = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  'test-fixtures',
  'writer.mjs',
);
const team = 'swarm';

describe('many writers, one reader', () => {
  it('64 processes × 50 messages while the reader marks read: every message exactly once', async () => {
    const root = await makeTempDirectory('muster-mailbox-swarm-');
    const reader = createMailbox({
      root,
      team,
      recipientCheck: 'none',
      retention: { keepRead: 20 },
    });
    await reader.claimInbox('reader');
    const writers = 64;
    const perWriter = 50;
    const delivered = new Map<string, number>();
    const controller = new AbortController();
    const reading = (async () => {
      for await (const item of reader.watch('reader', {
        signal: controller.signal,
        markRead: true,
      })) {
        delivered.set(item.message.text, (delivered.get(item.message.text) ?? 0) + 1);
      }
    })();

    const results = await runNodeProcesses(writerScript, writers, (index) => [
      root,
      team,
      'reader',
      `w${index}`,
      String(perWriter),
    ]);
    const acknowledged = results.flatMap((result) =>
      result.stdout
        .split('\n')
        .filter((line) => line.startsWith('ack '))
        .map((line) => line.slice(4)),
    );
    expect(acknowledged).toHaveLength(writers * perWriter);

    // Every send resolved only once its message was in the inbox; the reader catches up.
    const drainUntil = Date.now() + 30_000;
    while (delivered.size < acknowledged.length && Date.now() < drainUntil) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    controller.abort();
    await reading;

    const duplicates = [...delivered].filter(([, count]) => count > 1);
    expect(duplicates).toEqual([]);
    expect(acknowledged.filter((text) => !delivered.has(text))).toEqual([]);
    expect(delivered.size).toBe(writers * perWriter);

    const stored = storedTextCounts(root, team, 'reader');
    expect([...stored].filter(([, count]) => count !== 1)).toEqual([]);
    expect(stored.size).toBe(writers * perWriter);
    // Retention kept the inbox small: most read messages went to the archive.
    expect((await reader.readAll('reader')).length).toBeLessThan(200);
    expect(await reader.readUnread('reader')).toEqual([]);
  }, 600_000);
});
