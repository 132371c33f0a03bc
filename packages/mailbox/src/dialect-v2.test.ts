import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { makeTempDirectory } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import { createFileMailboxStore } from './file-mailbox-store.js';
import { createMailbox } from './mailbox.js';
import type { MailboxError } from './mailbox-error.js';
import { inboxFile, writeTeamConfig, writeTeamConfigV2 } from './test-fixtures/team.js';

const uuidV4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const signature = 'A'.repeat(86);
const readText = (file: string) => readFileSync(file, 'utf8');
const archiveOf = (file: string) =>
  readText(file.replace(/\.json$/, '.archive.jsonl'))
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('v2 teams (Claude Code 2.1.330 entries)', () => {
  it('writes msgV, a fresh v4 msg_id and type in 2.1.330 key order, through <name>.json.tmp.<8 hex>', async () => {
    const root = await makeTempDirectory('muster-mailbox-v2-');
    writeTeamConfigV2(root, 'crew', ['alpha', 'beta'], 'muster');
    const temporaryNames: string[] = [];
    const store = createFileMailboxStore({
      root,
      team: 'crew',
      onCommitStep: (step) => {
        if (step !== 'temporary-written') return;
        const folder = path.dirname(inboxFile(root, 'crew', 'alpha'));
        temporaryNames.push(...readdirSync(folder).filter((name) => name.includes('.tmp')));
      },
    });
    const mailbox = createMailbox({ root, team: 'crew', store });
    const first = await mailbox.send('alpha', {
      from: 'beta',
      text: 'hello',
      summary: 'greeting',
      timestamp: '2026-11-24T00:00:00.000Z',
    });
    const second = await mailbox.send('alpha', { from: 'team-lead', text: 'from the lead' });
    expect((await mailbox.speech()).dialect).toBe('v2');
    expect(first.messageId).toMatch(uuidV4);
    expect(second.messageId).toMatch(uuidV4);
    expect(second.messageId).not.toBe(first.messageId);
    const text = readText(inboxFile(root, 'crew', 'alpha'));
    const entries = JSON.parse(text) as Array<Record<string, unknown>>;
    expect(Object.keys(entries[0]!)).toEqual([
      'from',
      'text',
      'summary',
      'timestamp',
      'color',
      'msgV',
      'msg_id',
      'type',
      'read',
    ]);
    expect(entries[0]).toMatchObject({ color: 'green', msgV: 1, type: 'message', read: false });
    expect(entries[0]!.msg_id).toBe(first.messageId);
    // The lead has no color; no summary given: neither key appears.
    expect(Object.keys(entries[1]!)).toEqual([
      'from',
      'text',
      'timestamp',
      'msgV',
      'msg_id',
      'type',
      'read',
    ]);
    expect(text).toBe(JSON.stringify(entries, null, 2));
    expect(temporaryNames).toHaveLength(2);
    expect(temporaryNames.every((name) => /^alpha\.json\.tmp\.[0-9a-f]{8}$/.test(name))).toBe(true);
    // Readers get the whole entry, msg_id included.
    const unread = await mailbox.readUnread('alpha');
    expect(unread.map((item) => item.message.msg_id)).toEqual([second.messageId, first.messageId]);
  });

  it('signs the entries signEntry returns a signature for (lead_sig last) and ledgers every msg_id', async () => {
    const root = await makeTempDirectory('muster-mailbox-v2-');
    writeTeamConfigV2(root, 'crew', ['alpha', 'beta'], 'muster');
    const ledger: string[] = [];
    const signed: Array<[string, Record<string, unknown>]> = [];
    const mailbox = createMailbox({
      root,
      team: 'crew',
      ledger: { record: (id) => ledger.push(id) },
      signEntry: (recipient, entry) => {
        signed.push([recipient, { ...entry }]);
        return recipient === 'alpha' ? signature : undefined;
      },
    });
    const toAlpha = await mailbox.sendProtocolMessage('alpha', 'team-lead', {
      type: 'shutdown_request',
      requestId: 'shutdown-1@alpha',
      from: 'team-lead',
      reason: 'done',
      timestamp: '2026-11-24T00:00:01.000Z',
    });
    const toBeta = await mailbox.send('beta', { from: 'team-lead', text: 'unsigned' });
    const alphaEntry = JSON.parse(readText(inboxFile(root, 'crew', 'alpha')))[0];
    expect(Object.keys(alphaEntry).at(-1)).toBe('lead_sig');
    expect(alphaEntry.lead_sig).toBe(signature);
    expect(JSON.parse(readText(inboxFile(root, 'crew', 'beta')))[0]).not.toHaveProperty('lead_sig');
    // The signer saw the entry as written, without lead_sig.
    expect(signed[0]).toEqual(['alpha', { ...alphaEntry, lead_sig: undefined }]);
    expect(ledger).toEqual([toAlpha.messageId, toBeta.messageId]);

    const broken = createMailbox({ root, team: 'crew', signEntry: () => 'not a signature' });
    await expect(broken.send('alpha', { from: 'team-lead', text: 'x' })).rejects.toMatchObject({
      code: 'INVALID_MESSAGE',
    });
  });

  it('a send retried with the same messageId arrives once; a v1 team refuses messageId', async () => {
    const root = await makeTempDirectory('muster-mailbox-v2-');
    writeTeamConfigV2(root, 'crew', ['alpha', 'beta'], 'muster');
    const mailbox = createMailbox({ root, team: 'crew' });
    const first = await mailbox.send('alpha', { from: 'beta', text: 'once' });
    const again = await mailbox.send(
      'alpha',
      { from: 'beta', text: 'once' },
      { messageId: first.messageId! },
    );
    expect(again.messageId).toBe(first.messageId);
    expect(JSON.parse(readText(inboxFile(root, 'crew', 'alpha')))).toHaveLength(1);

    const broadcast = await mailbox.broadcast('beta', { text: 'all hands' });
    expect(Object.keys(broadcast.messageIds!)).toEqual(['team-lead', 'alpha']);
    expect(new Set(Object.values(broadcast.messageIds!)).size).toBe(2);
    await mailbox.broadcast('beta', { text: 'all hands' }, { messageId: broadcast.messageId! });
    expect(JSON.parse(readText(inboxFile(root, 'crew', 'team-lead')))).toHaveLength(1);
    expect(JSON.parse(readText(inboxFile(root, 'crew', 'alpha')))).toHaveLength(2);

    writeTeamConfig(root, 'old', ['alpha']);
    const old = createMailbox({ root, team: 'old' });
    const error = (await old
      .send('alpha', { from: 'team-lead', text: 'x' }, { messageId: first.messageId! })
      .catch((caught: unknown) => caught)) as MailboxError;
    expect(error.code).toBe('INVALID_MESSAGE');
    expect(existsSync(inboxFile(root, 'old', 'alpha'))).toBe(false);
    const plain = await old.send('alpha', { from: 'team-lead', text: 'x' });
    expect(plain.messageId).toBeUndefined();
    expect(Object.keys(plain.message)).toEqual(['from', 'text', 'timestamp', 'read']);
  });
});

describe('delivery in v2', () => {
  it("muster's own team: watch marks delivered entries read and keeps them", async () => {
    const root = await makeTempDirectory('muster-mailbox-v2-');
    writeTeamConfigV2(root, 'crew', ['alpha'], 'muster');
    const mailbox = createMailbox({ root, team: 'crew' });
    await mailbox.send('alpha', { from: 'team-lead', text: 'one' });
    await mailbox.send('alpha', { from: 'team-lead', text: 'two' });
    const controller = new AbortController();
    const seen: string[] = [];
    for await (const item of mailbox.watch('alpha', {
      markRead: true,
      signal: controller.signal,
    })) {
      seen.push(item.message.text);
      if (seen.length === 2) break;
    }
    const entries = JSON.parse(readText(inboxFile(root, 'crew', 'alpha')));
    expect(entries.map((entry: { read: boolean }) => entry.read)).toEqual([true, true]);
  });

  it('a Claude Code 2.1.330 team: delivered entries leave the inbox (only those), a copy in the archive', async () => {
    const root = await makeTempDirectory('muster-mailbox-v2-');
    writeTeamConfigV2(root, 'session-1a2b3c4d', ['alpha'], 'claude-code');
    const mailbox = createMailbox({ root, team: 'session-1a2b3c4d' });
    expect(await mailbox.speech()).toEqual({ dialect: 'v2', delivery: 'remove' });
    const one = await mailbox.send('alpha', { from: 'team-lead', text: 'one' });
    await mailbox.send('alpha', { from: 'team-lead', text: 'two' });
    const delivered = await mailbox.readUnread('alpha');
    // Arrives between the read and the mark: not delivered, so it stays.
    await mailbox.send('alpha', { from: 'team-lead', text: 'three' });
    await mailbox.markRead('alpha', delivered);
    const inbox = inboxFile(root, 'session-1a2b3c4d', 'alpha');
    const left = JSON.parse(readText(inbox)) as Array<{ text: string; read: boolean }>;
    expect(left.map((entry) => [entry.text, entry.read])).toEqual([['three', false]]);
    const archived = archiveOf(inbox);
    expect(archived.map((entry) => [entry.text, entry.read])).toEqual([
      ['one', true],
      ['two', true],
    ]);
    expect(archived[0]!.msg_id).toBe(one.messageId);

    const controller = new AbortController();
    for await (const item of mailbox.watch('alpha', {
      markRead: true,
      signal: controller.signal,
    })) {
      expect(item.message.text).toBe('three');
      break;
    }
    expect(JSON.parse(readText(inbox))).toEqual([]);
    expect(archiveOf(inbox).map((entry) => entry.text)).toEqual(['one', 'two', 'three']);
  });

  it('a Claude Code 2.1.330 team: an index named twice removes and archives its entry once', async () => {
    const root = await makeTempDirectory('muster-mailbox-v2-');
    writeTeamConfigV2(root, 'session-1a2b3c4d', ['alpha'], 'claude-code');
    const mailbox = createMailbox({ root, team: 'session-1a2b3c4d' });
    await mailbox.send('alpha', { from: 'team-lead', text: 'one' });
    await mailbox.send('alpha', { from: 'team-lead', text: 'two' });
    await mailbox.markRead('alpha', [0, 0]);
    const inbox = inboxFile(root, 'session-1a2b3c4d', 'alpha');
    expect(JSON.parse(readText(inbox)).map((entry: { text: string }) => entry.text)).toEqual([
      'two',
    ]);
    expect(archiveOf(inbox).map((entry) => entry.text)).toEqual(['one']);
  });
});
