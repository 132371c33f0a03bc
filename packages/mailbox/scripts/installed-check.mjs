// Run by scripts/check-installable.mjs in an empty folder where only the packed
// @muster/mailbox and what it depends on were installed with npm: imports it by name and
// uses it against a real team folder, as a tool that embeds only the mailbox would.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createMailbox, MailboxError } from '@muster/mailbox';

const root = mkdtempSync(path.join(tmpdir(), 'muster-installed-mailbox-'));
try {
  const team = 'crew';
  mkdirSync(path.join(root, 'teams', team), { recursive: true });
  const member = (name, extra = {}) => ({
    agentId: `${name}@${team}`,
    name,
    agentType: 'general-purpose',
    joinedAt: 1,
    tmuxPaneId: '',
    cwd: root,
    subscriptions: [],
    ...extra,
  });
  writeFileSync(
    path.join(root, 'teams', team, 'config.json'),
    JSON.stringify(
      {
        name: team,
        createdAt: 1,
        leadAgentId: `team-lead@${team}`,
        members: [member('team-lead'), member('alpha', { color: 'blue' })],
      },
      null,
      2,
    ),
  );
  const mailbox = createMailbox({ root, team });
  await mailbox.send('alpha', { from: 'team-lead', text: 'Start on task 1', summary: 'Task 1' });
  await mailbox.sendProtocolMessage('alpha', 'team-lead', {
    type: 'shutdown_request',
    requestId: 'shutdown-1@alpha',
    from: 'team-lead',
    reason: 'done',
    timestamp: new Date().toISOString(),
  });
  const unread = await mailbox.readUnread('alpha');
  // Shutdown requests come first, typed; free text stays text.
  if (unread[0]?.content.kind !== 'protocol') throw new Error('the shutdown request is not first');
  if (unread[1]?.content.text !== 'Start on task 1') throw new Error('the text message is missing');
  await mailbox.markRead('alpha', 'all');
  if ((await mailbox.readUnread('alpha')).length !== 0) throw new Error('mark read did nothing');
  const file = JSON.parse(readFileSync(path.join(root, 'teams', team, 'inboxes', 'alpha.json')));
  if (file.length !== 2 || !file.every((entry) => entry.read === true)) {
    throw new Error('the inbox file is not what was sent');
  }
  const refused = await mailbox
    .send('alpah', { from: 'team-lead', text: 'typo' })
    .catch((error) => error);
  if (!(refused instanceof MailboxError) || refused.code !== 'UNKNOWN_RECIPIENT') {
    throw new Error('a misspelled recipient was not refused');
  }
  console.log(`used @muster/mailbox: ${file.length} messages sent, read and marked read`);
} finally {
  rmSync(root, { recursive: true, force: true });
}
