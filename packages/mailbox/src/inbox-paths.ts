import path from 'node:path';
import { agentNameToFileName, createRootLayout, type RootLayout } from '@muster/protocol';
import { RootGuard } from './safe-files.js';

/** Every file that belongs to one agent's inbox. */
export interface InboxPaths {
  /** The agent's name as given. */
  agent: string;
  /** `teams/{team}/inboxes`: the folder watched for changes. */
  inboxesDirectory: string;
  /** `teams/{team}/inboxes/{agent}.json`: the inbox Claude Code reads too. */
  inbox: string;
  /** The inbox's file name, `{agent}.json`. */
  inboxFileName: string;
  /** `teams/{team}/inboxes/{agent}.archive.jsonl`: read messages moved out by compaction. */
  archive: string;
  /** `teams/{team}/.muster/mailbox/{agent}`: muster's own files for this inbox. */
  sidecarDirectory: string;
  /** `…/spool`: messages written by senders, waiting to be committed into the inbox. */
  spoolDirectory: string;
  /** `…/claimed`: messages a committer has taken from the spool and is putting in. */
  claimedDirectory: string;
  /** `…/rejected`: queued messages that did not parse (never committed; reported). */
  rejectedDirectory: string;
  /** `…/commit.json`: the record that makes a commit idempotent across crashes. */
  commitRecord: string;
  /** `…/claim.json`: present when a muster agent reads this inbox (compaction allowed). */
  claimMarker: string;
  /** `…/discarded`: temp files that will never become the inbox (see commit-record.ts). */
  discardedDirectory: string;
  /** `…/message-ids`: the newest `msg_id`s committed to this inbox, one per line. */
  messageIdLog: string;
  /** Refuses symbolic links below the root; every file operation goes through it. */
  guard: RootGuard;
}

/**
 * Checks, with `lstat`, that no folder of this inbox below the root (team, inboxes, muster's
 * queue folders) nor the inbox, its archive or its lock is a symbolic link. Missing ones are
 * fine. Throws `UNSAFE_PATH` naming the link.
 */
export function checkInboxPaths(paths: InboxPaths): void {
  paths.guard.checkAll([
    paths.inbox,
    paths.archive,
    `${paths.inbox}.lock`,
    paths.commitRecord,
    paths.claimMarker,
    paths.discardedDirectory,
    paths.messageIdLog,
    paths.spoolDirectory,
    paths.claimedDirectory,
    paths.rejectedDirectory,
  ]);
}

/** Builds the paths of one team's inboxes; names are validated and kept under the root. */
export function createInboxPathResolver(root: string, team: string) {
  const layout: RootLayout = createRootLayout(root);
  const inboxesDirectory = layout.inboxesDirectory(team);
  const mailboxSidecar = layout.sidecarPath(team, 'mailbox');
  const guard = new RootGuard(layout.root);
  const cache = new Map<string, InboxPaths>();
  return (agent: string): InboxPaths => {
    const cached = cache.get(agent);
    if (cached !== undefined) return cached;
    const inbox = layout.inboxPath(team, agent);
    const sidecarDirectory = path.join(mailboxSidecar, agentNameToFileName(agent));
    const paths: InboxPaths = {
      agent,
      inboxesDirectory,
      inbox,
      inboxFileName: path.basename(inbox),
      archive: layout.inboxArchivePath(team, agent),
      sidecarDirectory,
      spoolDirectory: path.join(sidecarDirectory, 'spool'),
      claimedDirectory: path.join(sidecarDirectory, 'claimed'),
      rejectedDirectory: path.join(sidecarDirectory, 'rejected'),
      commitRecord: path.join(sidecarDirectory, 'commit.json'),
      claimMarker: path.join(sidecarDirectory, 'claim.json'),
      discardedDirectory: path.join(sidecarDirectory, 'discarded'),
      messageIdLog: path.join(sidecarDirectory, 'message-ids'),
      guard,
    };
    cache.set(agent, paths);
    return paths;
  };
}
