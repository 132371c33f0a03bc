import { randomUUID } from 'node:crypto';
import {
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  existsSync,
} from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempDirectory, startNodeProcess } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import { followInboxes, type FollowInboxesOptions } from './follow-inbox.js';
import type { FollowNotice } from './follow-inbox-notices.js';
import { startInboxReader } from './follow-inbox-reader.js';
import { createSnapshotRecorder } from './follow-inbox-recorder.js';
import { historyFilePath, type RecordedInboxEntry } from './inbox-history-files.js';
import { readInboxHistory } from './inbox-history.js';

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), 'test-fixtures');
const team = 'session-1a2b3c4d';

function inboxFile(root: string, agent: string): string {
  return path.join(root, 'teams', team, 'inboxes', `${agent}.json`);
}

/** Writes an inbox as Claude Code 2.1.330 does: temp file, then rename over it. */
function writeInbox(file: string, entries: unknown[]): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.tmp.${randomUUID().slice(0, 8)}`;
  writeFileSync(temporary, JSON.stringify(entries, null, 2));
  renameSync(temporary, file);
}

let clock = Date.parse('2026-11-24T10:00:00.000Z');
function entry(text: string, extra: Record<string, unknown> = {}) {
  clock += 1000;
  return {
    from: 'alpha',
    text,
    timestamp: new Date(clock).toISOString(),
    msgV: 1,
    msg_id: randomUUID(),
    type: 'message',
    read: false,
    ...extra,
  };
}

function historyLines(
  root: string,
  agent: string,
): { seenAt: string; entry: { text: string; msg_id?: string } }[] {
  const file = historyFilePath(root, team, agent);
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map(
      (line) => JSON.parse(line) as { seenAt: string; entry: { text: string; msg_id?: string } },
    );
}

async function waitFor(condition: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A follower in this thread, recording what it reports. */
async function follow(root: string, extra: Partial<FollowInboxesOptions> = {}) {
  const controller = new AbortController();
  const entries: RecordedInboxEntry[] = [];
  const notices: FollowNotice[] = [];
  const follower = await followInboxes({
    root,
    team,
    thread: 'main',
    signal: controller.signal,
    onEntry: (recorded) => entries.push(recorded),
    onNotice: (notice) => notices.push(notice),
    ...extra,
  });
  const stop = async () => {
    controller.abort();
    return follower.stopped;
  };
  return { follower, entries, notices, stop };
}

describe('followInboxes against delivery by removal', () => {
  it('records 1,000 of 1,000 entries that another process removes within 100 ms', async () => {
    const root = await makeTempDirectory('muster-follow-removal-');
    const inbox = inboxFile(root, 'team-lead');
    mkdirSync(path.dirname(inbox), { recursive: true });
    // The follower runs as muster runs it: its own process, reading in a worker thread.
    const follower = startNodeProcess(path.join(fixtures, 'follow-team.mjs'), [root, team]);
    expect(await follower.waitForLine((line) => line.startsWith('ready'))).toBe('ready watch');

    const count = 1000;
    const remover = startNodeProcess(path.join(fixtures, 'removal-remover.mjs'), [
      inbox,
      String(count),
      '50',
      '100',
    ]);
    await remover.waitForLine((line) => line === 'ready');
    const writer = startNodeProcess(path.join(fixtures, 'removal-writer.mjs'), [
      inbox,
      'alpha',
      String(count),
      '5',
    ]);
    const written = (await writer.exited).stdout
      .split('\n')
      .filter((line) => line.startsWith('wrote '))
      .map((line) => line.split(' ')[1]!);
    expect(written).toHaveLength(count);
    const removed = await remover.exited;
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toContain(`removed ${count} `);
    // Delivery by removal happened: nothing is left in the inbox.
    expect(JSON.parse(readFileSync(inbox, 'utf8'))).toEqual([]);

    follower.child.kill('SIGTERM');
    const stopped = await follower.exited;
    expect(stopped.stdout, stopped.stderr).toContain('stopped ');
    const recordedIds = historyLines(root, 'team-lead').map((line) => line.entry.msg_id);
    const recordedSet = new Set(recordedIds);
    const lostIndexes = written.flatMap((id, index) => (recordedSet.has(id) ? [] : [index]));
    expect(lostIndexes, 'indexes of the entries the follower missed').toEqual([]);
    expect(recordedIds).toHaveLength(count);
    expect([...recordedIds].sort()).toEqual([...written].sort());
    // Each reached the follower's caller once, too.
    const announced = stopped.stdout.split('\n').filter((line) => line.startsWith('entry '));
    expect(announced).toHaveLength(count);
    const history = await readInboxHistory({ root, team, agent: 'team-lead' });
    expect(history.map((item) => item.entry.msg_id)).toEqual(written);
  }, 300_000);

  it('keeps the history after the team folder is deleted, and follows a new folder of that name', async () => {
    const root = await makeTempDirectory('muster-follow-gone-');
    const { entries, notices, stop } = await follow(root);
    expect(notices.map((notice) => notice.kind)).toEqual(['waiting-for-folder']);
    const first = entry('before the end');
    writeInbox(inboxFile(root, 'beta'), [first]);
    await waitFor(() => entries.length === 1, 'the first entry');

    rmSync(path.join(root, 'teams', team), { recursive: true });
    await waitFor(() => notices.some((notice) => notice.kind === 'folder-gone'), 'folder-gone');
    const afterDelete = await readInboxHistory({ root, team, agent: 'beta' });
    expect(afterDelete.map((item) => item.entry.text)).toEqual(['before the end']);
    expect(afterDelete[0]!.source).toBe('history');

    const second = entry('a new session');
    writeInbox(inboxFile(root, 'beta'), [second]);
    await waitFor(() => entries.length === 2, 'the entry in the new folder');
    const summary = await stop();
    expect(summary.mode).toBe('watch');
    expect(historyLines(root, 'beta').map((line) => line.entry.text)).toEqual([
      'before the end',
      'a new session',
    ]);
  });

  it('a half-written inbox does not lose the entries written after it', async () => {
    const root = await makeTempDirectory('muster-follow-torn-');
    const file = inboxFile(root, 'gamma');
    const first = entry('first');
    writeInbox(file, [first]);
    const { entries, notices, stop } = await follow(root);
    await waitFor(() => entries.length === 1, 'the first entry');
    // Written in place and cut off, as a 2.1.45 writer or a crash can leave it.
    writeFileSync(file, JSON.stringify([first, entry('lost half')], null, 2).slice(0, 150));
    await waitFor(() => notices.some((notice) => notice.kind === 'unreadable-inbox'), 'the notice');
    const later = [entry('second'), entry('third')];
    writeInbox(file, later);
    await waitFor(() => entries.length === 3, 'the later entries');
    const summary = await stop();
    expect(summary.unparsableReads).toBeGreaterThan(0);
    expect(historyLines(root, 'gamma').map((line) => line.entry.text)).toEqual([
      'first',
      'second',
      'third',
    ]);
  });

  it('a restarted follower adds no line for what is already in the history', async () => {
    const root = await makeTempDirectory('muster-follow-restart-');
    const file = inboxFile(root, 'alpha');
    const kept = [entry('one'), entry('two')];
    writeInbox(file, kept);
    const first = await follow(root);
    await waitFor(() => first.entries.length === 2, 'two entries');
    await first.stop();

    const second = await follow(root);
    writeInbox(file, [...kept, entry('three')]);
    await waitFor(() => second.entries.length === 1, 'the third entry');
    const summary = await second.stop();
    expect(summary.recorded).toBe(1);
    expect(second.entries.map((recorded) => recorded.entry.text)).toEqual(['three']);
    expect(historyLines(root, 'alpha').map((line) => line.entry.text)).toEqual([
      'one',
      'two',
      'three',
    ]);
  });

  it('two equal entries in one inbox are two entries; seeing them again adds nothing', async () => {
    const root = await makeTempDirectory('muster-follow-equal-');
    const file = inboxFile(root, 'alpha');
    const { entries, stop } = await follow(root);
    // No msg_id (a 2.1.45 or third-party writer): identity is from|timestamp|text.
    const twice = {
      from: 'beta',
      text: 'same',
      timestamp: '2026-11-24T10:00:00.000Z',
      read: false,
    };
    writeInbox(file, [twice, { ...twice }]);
    await waitFor(() => entries.length === 2, 'both copies');
    const other = entry('other');
    writeInbox(file, [twice, { ...twice, read: true }, other]);
    await waitFor(() => entries.length === 3, 'the other entry');
    writeInbox(file, [twice]);
    // A reused msg_id with other content is a different entry (a replay shows in history).
    writeInbox(file, [{ ...other, text: 'forged with a genuine msg_id' }]);
    await waitFor(() => entries.length === 4, 'the forged entry');
    await stop();
    expect(historyLines(root, 'alpha').map((line) => line.entry.text)).toEqual([
      'same',
      'same',
      'other',
      'forged with a genuine msg_id',
    ]);
  });

  it('two followers of one team write each entry once', async () => {
    const root = await makeTempDirectory('muster-follow-two-');
    const file = inboxFile(root, 'alpha');
    const left = await follow(root);
    const right = await follow(root);
    const written = Array.from({ length: 30 }, (_, index) => entry(`entry ${index}`));
    for (let index = 1; index <= written.length; index += 1) {
      writeInbox(file, written.slice(0, index));
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await waitFor(
      () => left.entries.length === 30 && right.entries.length === 30,
      `both callers (heard ${left.entries.length} and ${right.entries.length})`,
    );
    await Promise.all([left.stop(), right.stop()]);
    expect(historyLines(root, 'alpha').map((line) => line.entry.text)).toEqual(
      written.map((item) => item.text),
    );
  });

  it('falls back to polling only when watching fails, and says so', async () => {
    const root = await makeTempDirectory('muster-follow-poll-');
    const file = inboxFile(root, 'alpha');
    mkdirSync(path.dirname(file), { recursive: true });
    const notices: FollowNotice[] = [];
    const recorded: RecordedInboxEntry[] = [];
    const recorder = createSnapshotRecorder({
      root,
      team,
      onRecorded: (entries) => recorded.push(...entries),
      onNotice: (notice) => notices.push(notice),
      onFatal: (error) => {
        throw error;
      },
    });
    const reader = startInboxReader({
      root,
      team,
      pollIntervalMs: 20,
      onSnapshot: (snapshot) => recorder.add(snapshot),
      onNotice: (notice) => notices.push(notice),
      onFatal: (error) => {
        throw error;
      },
      watchFolder: () => {
        throw Object.assign(new Error('ENOSPC: System limit for number of file watchers reached'), {
          code: 'ENOSPC',
        });
      },
    });
    expect(reader.mode).toBe('poll');
    expect(notices.map((notice) => notice.kind)).toEqual(['polling']);
    expect(notices[0]!.message).toContain('ENOSPC');
    writeInbox(file, [entry('polled')]);
    await waitFor(() => recorded.length === 1, 'the polled entry');
    expect(reader.stop()).toMatchObject({ mode: 'poll', fallbackReason: 'ENOSPC' });
    await recorder.flush();
  });

  it('never writes the history through a symbolic link out of the root', async () => {
    const root = await makeTempDirectory('muster-follow-link-');
    const outside = await makeTempDirectory('muster-follow-outside-');
    mkdirSync(path.join(root, '.muster'), { recursive: true });
    symlinkSync(outside, path.join(root, '.muster', 'history'));
    writeInbox(inboxFile(root, 'alpha'), [entry('kept inside')]);
    await expect(follow(root)).rejects.toMatchObject({ code: 'UNSAFE_PATH' });
    // Also when the link appears while following.
    rmSync(path.join(root, '.muster', 'history'));
    const { follower } = await follow(root);
    await waitFor(() => existsSync(historyFilePath(root, team, 'alpha')), 'the first history line');
    rmSync(path.join(root, '.muster', 'history'), { recursive: true });
    symlinkSync(outside, path.join(root, '.muster', 'history'));
    writeInbox(inboxFile(root, 'alpha'), [entry('not written outside')]);
    await expect(follower.stopped).rejects.toMatchObject({ code: 'UNSAFE_PATH' });
    expect(existsSync(path.join(outside, team))).toBe(false);
  });

  it('in worker threads too, a link out of the root stops the follower with UNSAFE_PATH', async () => {
    const root = await makeTempDirectory('muster-follow-worker-link-');
    const outside = await makeTempDirectory('muster-follow-worker-outside-');
    mkdirSync(path.join(root, '.muster'), { recursive: true });
    symlinkSync(outside, path.join(root, '.muster', 'history'));
    writeInbox(inboxFile(root, 'alpha'), [entry('kept inside')]);
    const follower = startNodeProcess(path.join(fixtures, 'follow-team.mjs'), [root, team]);
    const result = await follower.exited;
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/UNSAFE_PATH/);
    expect(result.stdout).not.toContain('ready');
    expect(existsSync(path.join(outside, team))).toBe(false);
  });

  it('refuses options it cannot use, naming them', async () => {
    const signal = new AbortController().signal;
    await expect(followInboxes({ root: '/tmp', team: '../x', signal })).rejects.toMatchObject({
      code: 'INVALID_NAME',
    });
    await expect(
      followInboxes({ root: '/tmp', team: 'x', signal: undefined as unknown as AbortSignal }),
    ).rejects.toThrow(/signal must be an AbortSignal/);
  });
});
