import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempDirectory, runNodeProcesses, startNodeProcess } from '@muster/test-utils';
import lockfile from 'proper-lockfile';
import { describe, expect, it } from 'vitest';
import { inboxFile, storedTextCounts } from './test-fixtures/team.js';

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), 'test-fixtures');
const team = 'paused';
const recipient = 'reader';

const acknowledgedTexts = (stdout: string) =>
  stdout
    .split('\n')
    .filter((line) => line.startsWith('ack '))
    .map((line) => line.slice(4));

describe('a holder paused between its last check and its rename', () => {
  it('overwrites nothing: every acknowledged message and the in-between write survive', async () => {
    const root = await makeTempDirectory('muster-mailbox-paused-');
    const inbox = inboxFile(root, team, recipient);
    mkdirSync(path.dirname(inbox), { recursive: true });
    writeFileSync(inbox, '[]'); // As Claude Code creates an inbox.
    const goFile = path.join(root, 'go');
    // The holder sends directly (idle inbox) and stops right after its last check.
    const holder = startNodeProcess(path.join(fixtures, 'hold-at-step.mjs'), [
      root,
      team,
      recipient,
      'checked',
      'direct',
      goFile,
      '60000',
      'held',
    ]);
    await holder.waitForLine((line) => line.startsWith('paused checked'));
    holder.child.kill('SIGSTOP');
    let resumed = false;
    try {
      // muster never takes a live holder's lock, but Claude Code (proper-lockfile) takes any
      // lock whose mtime is older than its stale time: it does so here and appends in place.
      const release = await lockfile.lock(inbox, {
        lockfilePath: `${inbox}.lock`,
        stale: 2_000,
        update: 1_000,
        retries: { retries: 100, minTimeout: 100, maxTimeout: 200 },
      });
      const current = JSON.parse(readFileSync(inbox, 'utf8')) as unknown[];
      current.push({
        from: 'claude-code',
        text: 'written-in-between',
        timestamp: new Date().toISOString(),
        read: false,
      });
      writeFileSync(inbox, JSON.stringify(current, null, 2));
      await release();

      // Then muster senders deliver (and acknowledge) messages of their own.
      const [writer] = await runNodeProcesses(path.join(fixtures, 'writer.mjs'), 1, () => [
        root,
        team,
        recipient,
        'w',
        '5',
      ]);
      const others = acknowledgedTexts(writer!.stdout);
      expect(others).toEqual(['w-0', 'w-1', 'w-2', 'w-3', 'w-4']);

      holder.child.kill('SIGCONT');
      resumed = true;
      writeFileSync(goFile, 'go');
      const result = await holder.exited;
      expect(result.code, result.stderr).toBe(0);
      expect(acknowledgedTexts(result.stdout)).toEqual(['held']);

      const stored = storedTextCounts(root, team, recipient);
      expect([...stored].filter(([, count]) => count !== 1)).toEqual([]);
      expect([...stored.keys()].sort()).toEqual([...others, 'held', 'written-in-between'].sort());
    } finally {
      if (!resumed) holder.child.kill('SIGCONT');
      holder.child.kill('SIGKILL');
    }
  });
});
