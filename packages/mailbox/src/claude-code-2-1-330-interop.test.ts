import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempDirectory, runNodeProcesses, startNodeProcess } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import { createMailbox } from './mailbox.js';
import { inboxFile, writeTeamConfigV2 } from './test-fixtures/team.js';

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), 'test-fixtures');
const claudeCodeScript = path.join(fixtures, 'claude-code-2-1-330.mjs');
const writerScript = path.join(fixtures, 'writer.mjs');
const team = 'session-7f85384e';

const linesStartingWith = (stdout: string, prefix: string) =>
  stdout
    .split('\n')
    .filter((line) => line.startsWith(prefix))
    .map((line) => line.slice(prefix.length));

describe('sharing an inbox with Claude Code 2.1.330 (real processes)', () => {
  it('muster writers, a 2.1.330-style writer and a 2.1.330-style reader that deletes what it delivers: nothing lost, nothing twice, every read parses', async () => {
    const root = await makeTempDirectory('muster-mailbox-interop-');
    writeTeamConfigV2(root, team, ['reader'], 'claude-code');
    const inbox = inboxFile(root, team, 'reader');
    const stopFile = path.join(root, 'stop');
    const reader = startNodeProcess(claudeCodeScript, [inbox, 'reader', stopFile]);
    await reader.waitForLine((line) => line === 'ready');

    const musterWriters = 4;
    const perWriter = 40;
    const [musterResults, claudeCodeResults] = await Promise.all([
      runNodeProcesses(writerScript, musterWriters, (index) => [
        root,
        team,
        'reader',
        `w${index}`,
        String(perWriter),
      ]),
      runNodeProcesses(claudeCodeScript, 1, () => [inbox, 'writer', String(perWriter)]),
    ]);
    const acknowledged = [...musterResults, ...claudeCodeResults].flatMap((result) =>
      linesStartingWith(result.stdout, 'ack '),
    );
    expect(acknowledged).toHaveLength((musterWriters + 1) * perWriter);

    writeFileSync(stopFile, '');
    const finished = await reader.exited;
    expect(finished.code, finished.stderr).toBe(0);

    const deliveries = linesStartingWith(finished.stdout, 'delivered ').map((line) => {
      const [messageId, text] = line.split(' ');
      return { messageId: messageId!, text: text! };
    });
    const counts = new Map<string, number>();
    for (const { text } of deliveries) counts.set(text, (counts.get(text) ?? 0) + 1);
    expect(acknowledged.filter((text) => counts.get(text) !== 1)).toEqual([]);
    expect([...counts.keys()].filter((text) => !acknowledged.includes(text))).toEqual([]);
    expect(linesStartingWith(finished.stdout, 'reappeared ')).toEqual([]);
    expect(linesStartingWith(finished.stdout, 'unparsable ')).toEqual([]);
    // muster wrote 2.1.330 entries: each with its own msg_id.
    const musterIds = deliveries.filter((item) => item.text.startsWith('w'));
    expect(musterIds.every((item) => /^[0-9a-f-]{36}$/.test(item.messageId))).toBe(true);
    expect(new Set(deliveries.map((item) => item.messageId)).size).toBe(deliveries.length);
    // Everything was delivered, so the inbox is empty, and it parses.
    expect(JSON.parse(readFileSync(inbox, 'utf8'))).toEqual([]);
    expect(existsSync(`${inbox}.lock`)).toBe(false);

    const stats = [finished, ...claudeCodeResults].map(
      (result) => linesStartingWith(result.stdout, 'stats ')[0],
    );
    console.log(
      `interop: ${acknowledged.length} entries, 2.1.330 reader/writer lock stats ${stats.join(' / ')}`,
    );
  }, 240_000);

  it('muster reading a 2.1.330 inbox (delivery by removal) while a 2.1.330-style writer and muster writers append: each entry once, none left, all archived', async () => {
    const root = await makeTempDirectory('muster-mailbox-interop-');
    writeTeamConfigV2(root, team, ['reader'], 'claude-code');
    const inbox = inboxFile(root, team, 'reader');
    const mailbox = createMailbox({ root, team });
    const delivered = new Map<string, number>();
    const controller = new AbortController();
    const reading = (async () => {
      for await (const item of mailbox.watch('reader', {
        markRead: true,
        signal: controller.signal,
        pollIntervalMs: 100,
      })) {
        delivered.set(item.message.text, (delivered.get(item.message.text) ?? 0) + 1);
      }
    })();
    const perWriter = 40;
    const results = await Promise.all([
      runNodeProcesses(writerScript, 2, (index) => [
        root,
        team,
        'reader',
        `w${index}`,
        String(perWriter),
      ]),
      runNodeProcesses(claudeCodeScript, 1, () => [inbox, 'writer', String(perWriter)]),
    ]);
    const acknowledged = results
      .flat()
      .flatMap((result) => linesStartingWith(result.stdout, 'ack '));
    expect(acknowledged).toHaveLength(3 * perWriter);
    const until = Date.now() + 60_000;
    const left = () => JSON.parse(readFileSync(inbox, 'utf8')) as unknown[];
    while ((delivered.size < acknowledged.length || left().length > 0) && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    controller.abort();
    await reading;
    expect(acknowledged.filter((text) => delivered.get(text) !== 1)).toEqual([]);
    expect(left()).toEqual([]);
    const archived = readFileSync(inbox.replace(/\.json$/, '.archive.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => (JSON.parse(line) as { text: string }).text);
    expect(archived.sort()).toEqual([...acknowledged].sort());
  }, 240_000);
});
