// Run by scripts/check-installable.mjs in an empty folder where only the packed
// @muster/mailbox and what it depends on were installed with npm: imports it by name and
// uses it against a real team folder, as a tool that embeds only the mailbox would.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createMailbox, followInboxes, MailboxError, readInboxHistory } from '@muster/mailbox';

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

  // A v2 team (protocolVersion 2): entries carry msgV, msg_id and type, and a send retried
  // with its messageId arrives once.
  const configFile = path.join(root, 'teams', team, 'config.json');
  writeFileSync(
    configFile,
    JSON.stringify(
      { ...JSON.parse(readFileSync(configFile, 'utf8')), protocolVersion: 2 },
      null,
      2,
    ),
  );
  const receipt = await mailbox.send('alpha', { from: 'team-lead', text: 'v2 entry' });
  await mailbox.send(
    'alpha',
    { from: 'team-lead', text: 'v2 entry' },
    { messageId: receipt.messageId },
  );
  const v2 = JSON.parse(readFileSync(path.join(root, 'teams', team, 'inboxes', 'alpha.json')));
  const written = v2.filter((entry) => entry.msg_id === receipt.messageId);
  if (written.length !== 1 || written[0].msgV !== 1 || written[0].type !== 'message') {
    throw new Error('the v2 entry was not written once with msgV, msg_id and type');
  }

  // The inbox follower runs in a worker thread started from its own file in dist/.
  const controller = new AbortController();
  const follower = await followInboxes({ root, team, signal: controller.signal });
  await mailbox.send('alpha', { from: 'team-lead', text: 'followed' });
  const until = Date.now() + 10_000;
  let recorded = false;
  while (!recorded && Date.now() < until) {
    const seen = await readInboxHistory({ root, team, agent: 'alpha' });
    recorded = seen.some((item) => item.source === 'history');
    if (!recorded) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  controller.abort();
  await follower.stopped;
  if (!recorded) throw new Error('followInboxes recorded nothing within 10 s');
  console.log('used @muster/mailbox: v2 entry written once, the follower recorded the history');
} finally {
  rmSync(root, { recursive: true, force: true });
}
