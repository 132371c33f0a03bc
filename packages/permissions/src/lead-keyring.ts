import {
  createLeadKey,
  createMessageLedger,
  type LeadKey,
  type MessageLedger,
} from '@muster/provenance';
import { PermissionsError } from './permissions-error.js';

/** The command-line option that hands a member its lead's verify key (as Claude Code 2.1.330). */
export const LEAD_VERIFY_KEY_OPTION = '--lead-verify-key';

/** What a member in its own process needs from its lead at launch. */
export interface MemberLaunchKey {
  /** The member's name. */
  memberName: string;
  /** `<epochMs>.<base64url SPKI>`: the public half only. */
  verifyKey: string;
  /** Arguments to add to the member's command line: `['--lead-verify-key', verifyKey]`. */
  launchArguments: string[];
}

/**
 * The lead runtime's keys: one Ed25519 key pair per member that runs in its own process
 * (pty, tmux), kept in memory only, and one message ledger for the members that run in this
 * process. Pass {@link LeadKeyring.mailboxOptions} to the lead's `createMailbox`: every entry
 * it writes is then recorded in the ledger and signed for its recipient.
 */
export interface LeadKeyring {
  /**
   * Makes a fresh key pair for a member about to be launched in its own process and returns
   * what goes on its command line. Calling it again (a relaunch) replaces the key: the old
   * process can no longer verify what the lead writes.
   */
  createMemberKey(memberName: string): MemberLaunchKey;
  /** The verify key handed to a member, or undefined when it has none (in-process members). */
  verifyKeyOf(memberName: string): string | undefined;
  /** Drops a member's key (it left the team); entries to it are no longer signed. */
  forgetMember(memberName: string): void;
  /** `lead_sig` for an entry to `recipient`, or undefined when the recipient has no key. */
  signEntry(recipient: string, entry: Record<string, unknown>): string | undefined;
  /** The msg_ids written by this process: in-process members verify against it. */
  readonly ledger: MessageLedger;
  /** `{ signEntry, ledger }` for `createMailbox` (the lead runtime's mailbox). */
  mailboxOptions(): LeadMailboxOptions;
}

/** What the lead runtime's `createMailbox` gets: a signer per recipient and the ledger. */
export interface LeadMailboxOptions {
  /** `lead_sig` for an entry to `recipient`, or undefined when it has no key. */
  signEntry: (recipient: string, entry: Record<string, unknown>) => string | undefined;
  /** Records every msg_id (with its entry) the mailbox writes. */
  ledger: {
    record(messageId: string, entry?: Record<string, unknown>, recipient?: string): void;
  };
}

const MEMBER_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

/** Creates the lead runtime's {@link LeadKeyring}. Nothing is ever written to disk. */
export function createLeadKeyring(): LeadKeyring {
  const keys = new Map<string, LeadKey>();
  const ledger = createMessageLedger();
  const signEntry = (recipient: string, entry: Record<string, unknown>) => {
    const key = keys.get(recipient);
    return key === undefined
      ? undefined
      : key.sign(entry as unknown as Parameters<LeadKey['sign']>[0]);
  };
  return {
    createMemberKey(memberName) {
      if (typeof memberName !== 'string' || !MEMBER_NAME.test(memberName)) {
        throw new PermissionsError({
          code: 'INVALID_INPUT',
          message: `Cannot make a lead key for member ${JSON.stringify(memberName)}: a member name is letters, digits, ".", "_" or "-" (at most 128, starting with a letter or digit).`,
        });
      }
      const key = createLeadKey();
      keys.set(memberName, key);
      return {
        memberName,
        verifyKey: key.verifyKey,
        launchArguments: [LEAD_VERIFY_KEY_OPTION, key.verifyKey],
      };
    },
    verifyKeyOf: (memberName) => keys.get(memberName)?.verifyKey,
    forgetMember(memberName) {
      keys.delete(memberName);
    },
    signEntry,
    ledger,
    mailboxOptions: () => ({
      signEntry,
      ledger: {
        record: (messageId, entry, recipient) =>
          ledger.record(messageId, entry as Parameters<MessageLedger['record']>[1], recipient),
      },
    }),
  };
}

/**
 * The verify key on a member's command line (`--lead-verify-key KEY` or
 * `--lead-verify-key=KEY`), or undefined when the option is absent. Throws `INVALID_INPUT`
 * when the option is given twice or without a value.
 */
export function leadVerifyKeyFromArguments(argv: readonly string[]): string | undefined {
  const found: string[] = [];
  argv.forEach((argument, index) => {
    if (argument === LEAD_VERIFY_KEY_OPTION) {
      const value = argv[index + 1];
      if (value === undefined || value.startsWith('--')) {
        throw new PermissionsError({
          code: 'INVALID_INPUT',
          message: `${LEAD_VERIFY_KEY_OPTION} needs a value: the lead's verify key "<epochMs>.<base64url SPKI>".`,
        });
      }
      found.push(value);
    } else if (argument.startsWith(`${LEAD_VERIFY_KEY_OPTION}=`)) {
      found.push(argument.slice(LEAD_VERIFY_KEY_OPTION.length + 1));
    }
  });
  if (found.length > 1) {
    throw new PermissionsError({
      code: 'INVALID_INPUT',
      message: `${LEAD_VERIFY_KEY_OPTION} was given ${found.length} times; a member has exactly one lead key. Launch it with one.`,
    });
  }
  if (found[0] === '') {
    throw new PermissionsError({
      code: 'INVALID_INPUT',
      message: `${LEAD_VERIFY_KEY_OPTION}= is empty: give the lead's verify key "<epochMs>.<base64url SPKI>".`,
    });
  }
  return found[0];
}
