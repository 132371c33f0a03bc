// Lead keys: the verify key's shape, signing, and a private key that never leaves the closure.
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createLeadKey, signEntry, verifyLeadSignature } from './lead-key.js';
import { ProvenanceError } from './provenance-error.js';
import { parseVerifyKey } from './verify-key.js';

const entry = {
  from: 'team-lead',
  text: 'hello',
  timestamp: '2026-11-24T03:00:00.000Z',
  msgV: 1,
  msg_id: 'a5f3c1d2-0000-4000-8000-000000000001',
  type: 'message',
  read: false,
};

describe('createLeadKey', () => {
  it('makes "<epochMs>.<base64url SPKI>" verify keys, a new pair each time', () => {
    const key = createLeadKey({ now: () => 1795479482352 });
    expect(key.createdAt).toBe(1795479482352);
    expect(key.verifyKey).toMatch(/^1795479482352\.MCowBQYDK2VwAyEA[A-Za-z0-9_-]{43}$/);
    expect(parseVerifyKey(key.verifyKey).createdAt).toBe(1795479482352);
    expect(createLeadKey().verifyKey).not.toBe(createLeadKey().verifyKey);
  });

  it('shows nothing but the public half, however it is looked at', () => {
    const key = createLeadKey();
    expect(Object.keys(key).sort()).toEqual(['createdAt', 'sign', 'verifyKey']);
    expect(JSON.parse(JSON.stringify(key))).toEqual({
      verifyKey: key.verifyKey,
      createdAt: key.createdAt,
    });
    expect(inspect(key, { showHidden: true, depth: 5 })).not.toMatch(/private|KeyObject/i);
    expect(Object.isFrozen(key)).toBe(true);
    expect(() => Object.assign(key, { verifyKey: 'other' })).toThrow(TypeError);
  });

  it('signs with lead_sig appended last, replacing an old one', () => {
    const key = createLeadKey();
    const signed = signEntry(key, entry);
    expect(Object.keys(signed)).toEqual([...Object.keys(entry), 'lead_sig']);
    expect(signed.lead_sig).toMatch(/^[A-Za-z0-9_-]{86}$/);
    expect(signed.lead_sig).toBe(key.sign(entry));
    expect(verifyLeadSignature(key.verifyKey, signed)).toBe(true);
    const resigned = signEntry(key, { ...signed, lead_sig: 'x', text: 'changed' });
    expect(Object.keys(resigned).at(-1)).toBe('lead_sig');
    expect(verifyLeadSignature(key.verifyKey, resigned)).toBe(true);
  });

  it('reads a null summary, color or from_plugin as absent, as `?? null` does', () => {
    const key = createLeadKey();
    const signed = signEntry(key, entry);
    expect(verifyLeadSignature(key.verifyKey, { ...signed, summary: null, color: null })).toBe(
      true,
    );
    expect(verifyLeadSignature(key.verifyKey, { ...signed, from_plugin: null })).toBe(true);
    expect(verifyLeadSignature(key.verifyKey, { ...signed, summary: '' })).toBe(false);
    expect(verifyLeadSignature(key.verifyKey, { ...signed, summary: 3 })).toBe(false);
  });

  it('refuses to sign an entry without its signed fields', () => {
    const key = createLeadKey();
    for (const broken of [
      { ...entry, msg_id: undefined },
      { ...entry, from: '' },
      { ...entry, text: 3 },
      { ...entry, summary: 4 },
    ]) {
      expect(() => key.sign(broken as never)).toThrow(ProvenanceError);
    }
    expect(() => createLeadKey({ now: () => 1.5 })).toThrow(/not whole epoch milliseconds/);
  });

  it('does not accept a non-canonical spelling of a signature', () => {
    const key = createLeadKey();
    const signed = signEntry(key, entry);
    const last = signed.lead_sig.at(-1)!;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const sibling = alphabet[alphabet.indexOf(last) ^ 1]!;
    const respelled = { ...signed, lead_sig: signed.lead_sig.slice(0, -1) + sibling };
    expect(Buffer.from(respelled.lead_sig, 'base64url')).toEqual(
      Buffer.from(signed.lead_sig, 'base64url'),
    );
    expect(verifyLeadSignature(key.verifyKey, respelled)).toBe(false);
  });
});

describe('parseVerifyKey', () => {
  const good = '1795479482352.MCowBQYDK2VwAyEALlcsp50y-Vat8k5QT9tag3rRLcGbCq2socJ5P8wesGk';
  const spki = good.slice(good.indexOf('.') + 1);

  it.each([
    ['no dot', spki, 'has no "."'],
    ['a time that is not a number', `soon.${spki}`, 'not a creation time'],
    ['padding', `${good}=`, 'not unpadded base64url'],
    ['standard base64', good.replace('-', '+'), 'not unpadded base64url'],
    ['a short key', good.slice(0, -2), 'bytes, not the 44'],
    [
      'another algorithm',
      `1.${Buffer.from('302a300506032b6571032100' + '00'.repeat(32), 'hex').toString('base64url')}`,
      'not Ed25519',
    ],
  ])('refuses %s with INVALID_VERIFY_KEY', (_label, text, problem) => {
    try {
      parseVerifyKey(text);
      expect.unreachable('parseVerifyKey accepted a malformed key');
    } catch (error) {
      expect(error).toBeInstanceOf(ProvenanceError);
      expect((error as ProvenanceError).code).toBe('INVALID_VERIFY_KEY');
      expect((error as ProvenanceError).message).toContain(problem);
      expect((error as ProvenanceError).message).toContain('--lead-verify-key');
    }
  });

  it('throws from verifyLeadSignature too, rather than answering false', () => {
    expect(() => verifyLeadSignature('nonsense', entry)).toThrow(ProvenanceError);
  });
});
