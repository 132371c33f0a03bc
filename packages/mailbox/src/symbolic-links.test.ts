import {
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { makeTempDirectory } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import { MailboxError } from './mailbox-error.js';
import { createMailbox } from './mailbox.js';
import { inboxFile, writeTeamConfig } from './test-fixtures/team.js';

const team = 'links';
const recipient = 'reader';

/** Every file below `directory` (names and bytes), to compare before and after. */
function snapshot(directory: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name);
      const relative = path.relative(directory, full);
      if (entry.isDirectory()) {
        files[`${relative}/`] = '';
        walk(full);
      } else files[relative] = readFileSync(full, 'base64');
    }
  };
  walk(directory);
  return files;
}

const outsideInbox = JSON.stringify(
  [{ from: 'someone', text: 'outside', timestamp: '2026-01-01T00:00:00.000Z', read: false }],
  null,
  2,
);

/** A root with a team, and a folder outside the root holding files that must stay as they are. */
async function setUp() {
  const base = await makeTempDirectory('muster-mailbox-links-');
  const root = path.join(base, 'root');
  const outside = path.join(base, 'outside');
  mkdirSync(outside, { recursive: true });
  writeFileSync(path.join(outside, `${recipient}.json`), outsideInbox);
  writeFileSync(path.join(outside, `${recipient}.archive.jsonl`), 'outside archive\n');
  writeFileSync(path.join(outside, 'notes.txt'), 'precious');
  writeTeamConfig(root, team, [recipient, 'writer']);
  const teamDirectory = path.join(root, 'teams', team);
  const mailbox = createMailbox({ root, team });
  return { root, outside, teamDirectory, mailbox, before: snapshot(outside) };
}

async function expectRefused(promise: Promise<unknown>, link: string) {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(MailboxError);
  expect((error as MailboxError).code).toBe('UNSAFE_PATH');
  expect((error as MailboxError).message).toContain(link);
}

const message = { from: 'writer', text: 'hello' };

describe('a symbolic link below the root is never followed', () => {
  it('a linked inboxes folder: sends, reads and clears are refused and nothing outside changes', async () => {
    const { outside, teamDirectory, mailbox, before } = await setUp();
    const link = path.join(teamDirectory, 'inboxes');
    symlinkSync(outside, link);
    await expectRefused(mailbox.send(recipient, message), link);
    await expectRefused(mailbox.readAll(recipient), link);
    await expectRefused(mailbox.markRead(recipient, 'all'), link);
    await expectRefused(mailbox.clear(recipient, { force: true }), link);
    expect(snapshot(outside)).toEqual(before);
  });

  it('an inbox that is a link to an outside file: not read, not replaced, not quarantined', async () => {
    const { root, outside, mailbox, before } = await setUp();
    const inbox = inboxFile(root, team, recipient);
    mkdirSync(path.dirname(inbox), { recursive: true });
    symlinkSync(path.join(outside, `${recipient}.json`), inbox);
    await expectRefused(mailbox.send(recipient, message), inbox);
    await expectRefused(mailbox.readAll(recipient), inbox);
    expect(snapshot(outside)).toEqual(before);
  });

  it('a lock folder that is a link: the lock is not taken through it', async () => {
    const { root, outside, mailbox, before } = await setUp();
    const inbox = inboxFile(root, team, recipient);
    mkdirSync(path.dirname(inbox), { recursive: true });
    const link = `${inbox}.lock`;
    symlinkSync(outside, link);
    await expectRefused(mailbox.send(recipient, message), link);
    expect(snapshot(outside)).toEqual(before);
  });

  it('a corrupt outside file behind a linked inboxes folder is not renamed aside', async () => {
    const { outside, teamDirectory, mailbox } = await setUp();
    writeFileSync(path.join(outside, `${recipient}.json`), '{ not json');
    const before = snapshot(outside);
    const link = path.join(teamDirectory, 'inboxes');
    symlinkSync(outside, link);
    await expectRefused(mailbox.send(recipient, message), link);
    expect(snapshot(outside)).toEqual(before);
  });

  it('an archive that is a link: compaction appends nothing outside', async () => {
    const { root, outside, mailbox, before } = await setUp();
    await mailbox.claimInbox(recipient);
    for (let index = 0; index < 3; index += 1) {
      await mailbox.send(recipient, { from: 'writer', text: `m${index}` });
    }
    await mailbox.markRead(recipient, 'all');
    const archive = inboxFile(root, team, recipient).replace(/\.json$/, '.archive.jsonl');
    symlinkSync(path.join(outside, `${recipient}.archive.jsonl`), archive);
    await expectRefused(mailbox.compact(recipient, { keepRead: 0 }), archive);
    await expectRefused(mailbox.clear(recipient), archive);
    await expectRefused(mailbox.readAll(recipient), archive);
    expect(snapshot(outside)).toEqual(before);
    // Nothing was lost by refusing: without the link, every message is still there.
    unlinkSync(archive);
    expect((await mailbox.readAll(recipient)).map((entry) => entry.text)).toEqual([
      'm0',
      'm1',
      'm2',
    ]);
  });

  it('a linked muster folder (the queue) or team config: nothing is created or read outside', async () => {
    const { outside, teamDirectory, mailbox, before } = await setUp();
    const sidecar = path.join(teamDirectory, '.muster');
    symlinkSync(outside, sidecar);
    await expectRefused(mailbox.send(recipient, message), sidecar);
    await expectRefused(mailbox.claimInbox(recipient), sidecar);
    expect(snapshot(outside)).toEqual(before);

    const config = path.join(teamDirectory, 'config.json');
    const outsideConfig = path.join(outside, 'config.json');
    writeFileSync(outsideConfig, readFileSync(config));
    const withConfig = snapshot(outside);
    unlinkSync(sidecar);
    unlinkSync(config);
    symlinkSync(outsideConfig, config);
    await expectRefused(mailbox.send(recipient, message), config);
    expect(snapshot(outside)).toEqual(withConfig);
  });
});
