import { randomUUID } from 'node:crypto';
import { verifyLeadSignature } from '@muster/provenance';
import { describe, expect, it } from 'vitest';
import { createLeadKeyring, leadVerifyKeyFromArguments } from './lead-keyring.js';

const entry = () => ({
  from: 'team-lead',
  text: 'hello',
  timestamp: new Date().toISOString(),
  msgV: 1,
  msg_id: randomUUID(),
  type: 'message',
  read: false,
});

describe('lead keyring', () => {
  it('makes one key per member, hands out only the public half, signs for that member alone', () => {
    const keyring = createLeadKeyring();
    const gamma = keyring.createMemberKey('gamma');
    const delta = keyring.createMemberKey('delta');
    expect(gamma.launchArguments).toEqual(['--lead-verify-key', gamma.verifyKey]);
    expect(gamma.verifyKey).toMatch(/^\d+\.MCowBQYDK2VwAyEA[A-Za-z0-9_-]{43}$/);
    expect(delta.verifyKey).not.toBe(gamma.verifyKey);
    const written = entry();
    const signature = keyring.signEntry('gamma', written)!;
    expect(verifyLeadSignature(gamma.verifyKey, { ...written, lead_sig: signature })).toBe(true);
    expect(verifyLeadSignature(delta.verifyKey, { ...written, lead_sig: signature })).toBe(false);
    // In-process members and strangers get no signature (the ledger covers the former).
    expect(keyring.signEntry('alpha', entry())).toBeUndefined();
    // Nothing private can be serialized out of it.
    expect(JSON.stringify(keyring)).not.toMatch(/PRIVATE|privateKey/);

    // A relaunch replaces the key; a removed member is no longer signed for.
    const relaunched = keyring.createMemberKey('gamma');
    expect(relaunched.verifyKey).not.toBe(gamma.verifyKey);
    expect(keyring.verifyKeyOf('gamma')).toBe(relaunched.verifyKey);
    keyring.forgetMember('gamma');
    expect(keyring.signEntry('gamma', entry())).toBeUndefined();
    expect(() => keyring.createMemberKey('../x')).toThrow(/member name is letters/);
  });

  it('the mailbox options record what is written in the ledger', () => {
    const keyring = createLeadKeyring();
    const written = entry();
    keyring.mailboxOptions().ledger.record(written.msg_id, written);
    expect(keyring.ledger.matches(written)).toBe(true);
    expect(keyring.ledger.matches({ ...written, text: 'changed' })).toBe(false);
  });

  it('reads the verify key from a command line, and says what is wrong with a bad one', () => {
    expect(leadVerifyKeyFromArguments(['node', 'm.mjs', '--lead-verify-key', '1.K'])).toBe('1.K');
    expect(leadVerifyKeyFromArguments(['--lead-verify-key=2.K'])).toBe('2.K');
    expect(leadVerifyKeyFromArguments(['--other'])).toBeUndefined();
    expect(() => leadVerifyKeyFromArguments(['--lead-verify-key'])).toThrow(/needs a value/);
    expect(() => leadVerifyKeyFromArguments(['--lead-verify-key', '--x'])).toThrow(/needs a value/);
    expect(() =>
      leadVerifyKeyFromArguments(['--lead-verify-key=1.K', '--lead-verify-key=2.K']),
    ).toThrow(/given 2 times/);
    expect(() => leadVerifyKeyFromArguments(['--lead-verify-key='])).toThrow(/is empty/);
  });
});
