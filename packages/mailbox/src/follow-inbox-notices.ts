/** Something a follower wants its caller to know; following goes on. */
export interface FollowNotice {
  /**
   * - `watching`: the inboxes folder is watched (an event on every rename).
   * - `polling`: watching failed, so the folder is read every `pollIntervalMs` instead;
   *   entries that live shorter than that interval can be missed.
   * - `waiting-for-folder`: the inboxes folder does not exist (yet); followed once it does.
   * - `folder-gone`: the inboxes folder was removed or replaced (the team ended).
   * - `unreadable-inbox`: an inbox did not parse as a JSON array after retries; skipped
   *   until its next change.
   * - `invalid-entries`: an inbox holds elements that are not inbox entries (not recorded).
   * - `history-problem`: a history file holds a line that is not a history line (skipped).
   */
  kind:
    | 'watching'
    | 'polling'
    | 'waiting-for-folder'
    | 'folder-gone'
    | 'unreadable-inbox'
    | 'invalid-entries'
    | 'history-problem';
  /** A sentence for people. */
  message: string;
  /** The file or folder concerned. */
  file?: string;
}

/** What a follower did, reported when it stops. */
export interface FollowSummary {
  /** `watch` when it followed by file-system events, `poll` after a fallback. */
  mode: 'watch' | 'poll';
  /** Why it fell back to polling (absent when it never did). */
  fallbackReason?: string;
  /** Inbox files read. */
  inboxReads: number;
  /** History lines this follower wrote. */
  recorded: number;
  /** Reads whose text did not parse as a JSON array (each retried). */
  unparsableReads: number;
}
