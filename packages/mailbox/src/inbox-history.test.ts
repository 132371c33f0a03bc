import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { makeTempDirectory } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import { historyFilePath } from './inbox-history-files.js';
import { inboxEntryIdentity, parseHistoryText } from './inbox-history-format.js';
import { inboxHistoryAgents, readInboxHistory } from './inbox-history.js';

const team = 'session-0badc0de';

function message(text: string, second: number, extra: Record<string, unknown> = {}) {
  return {
    from: 'alpha',
    text,
    timestamp: `2026-11-24T10:00:${String(second).padStart(2, '0')}.000Z`,
    read: false,
    ...extra,
  };
}

function historyLine(entry: object, seenAt = '2026-11-24T11:00:00.000Z'): string {
  return `${JSON.stringify({ seenAt, entry })}\n`;
}

async function teamWithFiles(files: { history?: string; archive?: string; inbox?: string }) {
  const root = await makeTempDirectory('muster-inbox-history-');
  const inboxes = path.join(root, 'teams', team, 'inboxes');
  mkdirSync(inboxes, { recursive: true });
  if (files.history !== undefined) {
    const file = historyFilePath(root, team, 'team-lead');
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, files.history);
  }
  if (files.archive !== undefined)
    writeFileSync(path.join(inboxes, 'team-lead.archive.jsonl'), files.archive);
  if (files.inbox !== undefined) writeFileSync(path.join(inboxes, 'team-lead.json'), files.inbox);
  return root;
}

describe('readInboxHistory', () => {
  it('merges history, archive and inbox: each entry once, oldest first', async () => {
    const seenOnly = message('seen by a follower, then removed', 3, { msg_id: 'id-3' });
    const archived = message('archived by muster', 1);
    const archivedAndSeen = message('archived and seen', 2);
    const present = message('still in the inbox', 4, { msg_id: 'id-4' });
    const root = await teamWithFiles({
      history: historyLine(seenOnly) + historyLine(archivedAndSeen) + historyLine(present),
      // The archive holds entries marked read: `read` is not part of the identity.
      archive: `${JSON.stringify({ ...archived, read: true })}\n${JSON.stringify({ ...archivedAndSeen, read: true })}\n`,
      inbox: JSON.stringify([present], null, 2),
    });
    const history = await readInboxHistory({ root, team, agent: 'team-lead' });
    expect(history.map((item) => [item.entry.text, item.source])).toEqual([
      ['archived by muster', 'archive'],
      ['archived and seen', 'history'],
      ['seen by a follower, then removed', 'history'],
      ['still in the inbox', 'history'],
    ]);
    expect(history[1]!.firstSeenAt).toBe('2026-11-24T11:00:00.000Z');
  });

  it('counts equal entries that occur together as many times as they occur', async () => {
    const twice = message('twice', 5);
    const root = await teamWithFiles({
      history: historyLine(twice),
      inbox: JSON.stringify([twice, twice, message('once', 6)], null, 2),
    });
    const history = await readInboxHistory({ root, team, agent: 'team-lead' });
    expect(history.map((item) => [item.entry.text, item.source])).toEqual([
      ['twice', 'history'],
      ['twice', 'inbox'],
      ['once', 'inbox'],
    ]);
  });

  it('works after the team folder is gone, and skips what does not parse (naming it)', async () => {
    const root = await teamWithFiles({
      history:
        historyLine(message('first', 1)) +
        'not json\n' +
        historyLine(message('second', 2)) +
        '{"seenAt":"2026-11-24T11:00:00.000Z","entry":{"from":"al',
    });
    rmSync(path.join(root, 'teams', team), { recursive: true });
    const problems: string[] = [];
    const history = await readInboxHistory({
      root,
      team,
      agent: 'team-lead',
      onProblem: (file, problem) => problems.push(`${path.basename(file)}: ${problem}`),
    });
    expect(history.map((item) => item.entry.text)).toEqual(['first', 'second']);
    expect(problems).toEqual([
      'team-lead.jsonl: line 2: not JSON',
      'team-lead.jsonl: the last line is cut short; skipped',
    ]);
    expect(await inboxHistoryAgents({ root, team })).toEqual(['team-lead']);
    expect(await readInboxHistory({ root, team, agent: 'nobody' })).toEqual([]);
  });

  it('refuses bad names and links out of the root', async () => {
    const root = await teamWithFiles({});
    await expect(readInboxHistory({ root, team: '../etc', agent: 'x' })).rejects.toMatchObject({
      code: 'INVALID_NAME',
    });
    await expect(readInboxHistory({ root, team, agent: 'a/b' })).rejects.toMatchObject({
      code: 'INVALID_NAME',
    });
    const outside = await makeTempDirectory('muster-inbox-history-outside-');
    mkdirSync(path.join(outside, team));
    writeFileSync(path.join(outside, team, 'team-lead.jsonl'), historyLine(message('outside', 1)));
    mkdirSync(path.join(root, '.muster'));
    symlinkSync(outside, path.join(root, '.muster', 'history'));
    await expect(readInboxHistory({ root, team, agent: 'team-lead' })).rejects.toMatchObject({
      code: 'UNSAFE_PATH',
    });
  });
});

describe('inboxEntryIdentity', () => {
  it('is the msg_id when there is one, else from|timestamp|text; never the read flag or key order', () => {
    const entry = message('hello', 1, { msg_id: 'abc' });
    const reordered = {
      read: true,
      msg_id: 'abc',
      text: 'hello',
      timestamp: entry.timestamp,
      from: 'alpha',
    };
    expect(inboxEntryIdentity(reordered)).toBe(inboxEntryIdentity(entry));
    expect(inboxEntryIdentity(entry).startsWith('id:abc#')).toBe(true);
    expect(inboxEntryIdentity(message('hello', 1)).startsWith('from-timestamp-text:')).toBe(true);
    // The same msg_id with other content is another entry.
    expect(inboxEntryIdentity({ ...entry, text: 'swapped' })).not.toBe(inboxEntryIdentity(entry));
  });

  it('parseHistoryText reports a torn last line apart from bad lines', () => {
    const parsed = parseHistoryText(`${historyLine(message('a', 1))}{"seenAt"`);
    expect(parsed.lines).toHaveLength(1);
    expect(parsed.tornTail).toBe(true);
    expect(parsed.problems).toEqual([]);
  });
});
