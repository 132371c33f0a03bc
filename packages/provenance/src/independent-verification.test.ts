// muster's signatures checked by a second, independent implementation of the documented
// algorithm: WebCrypto Ed25519 with the raw 32-byte key cut out of the SPKI, and the signed
// text built by hand. And the other way round: entries signed by WebCrypto verify in muster.
import { webcrypto } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createLeadKey, signEntry, verifyLeadSignature } from './lead-key.js';
import { readSignatureExample } from './test-support.js';

const { subtle } = webcrypto;

/** The signed text, written out by hand from FORMAT.md rather than with the package's code. */
function handBuiltPayload(entry: Record<string, unknown>): Uint8Array {
  const quote = (value: unknown): string =>
    value === undefined || value === null ? 'null' : JSON.stringify(value);
  const text =
    '["claude-team-lead-entry-v1",' +
    [entry.msg_id, entry.from, entry.timestamp, entry.text, entry.summary, entry.color]
      .map(quote)
      .join(',') +
    `,${quote(entry.from_plugin)}]`;
  return new TextEncoder().encode(text);
}

/** The raw Ed25519 key: the last 32 of the SPKI's 44 bytes, after its fixed 12-byte header. */
async function importVerifyKey(verifyKey: string): Promise<webcrypto.CryptoKey> {
  const [time, encoded] = verifyKey.split('.');
  expect(time).toMatch(/^\d+$/);
  const spki = Buffer.from(encoded!, 'base64url');
  expect(spki.length).toBe(44);
  expect(spki.subarray(0, 12).toString('hex')).toBe('302a300506032b6570032100');
  return subtle.importKey('raw', spki.subarray(12), { name: 'Ed25519' }, false, ['verify']);
}

async function independentlyVerifies(verifyKey: string, entry: Record<string, unknown>) {
  const key = await importVerifyKey(verifyKey);
  const signature = Buffer.from(String(entry.lead_sig), 'base64url');
  return subtle.verify({ name: 'Ed25519' }, key, signature, handBuiltPayload(entry));
}

const entries: Record<string, unknown>[] = [
  { from: 'team-lead', text: 'Start on task 1', timestamp: '2026-11-24T03:00:00.000Z' },
  {
    from: 'team-lead',
    text: '{"type":"shutdown_request","requestId":"shutdown-1@alpha","from":"team-lead","timestamp":"2026-11-24T03:00:01.000Z"}',
    summary: 'Wrap up <now> & "quickly"',
    timestamp: '2026-11-24T03:00:01.000Z',
    color: 'green',
  },
  {
    from: 'user',
    text: 'Non-ASCII: é ✓ 🚀, separators \u2028\u2029, control \u0001\t\n, backslash \\',
    timestamp: '2026-11-24T03:00:02.000Z',
    from_plugin: 'reviewer',
  },
];

describe('an independent Ed25519 implementation (WebCrypto)', () => {
  it('verifies the recorded Claude Code signature (so the hand-built payload is right)', async () => {
    const { verifyKey, entry } = readSignatureExample();
    expect(await independentlyVerifies(verifyKey, entry)).toBe(true);
  });

  it.each(entries.map((entry, index) => [index, entry] as const))(
    'verifies entry %i signed by muster, and refuses it once changed',
    async (index, fields) => {
      const key = createLeadKey();
      const entry = signEntry(key, {
        ...(fields as { from: string; text: string; timestamp: string }),
        msgV: 1,
        msg_id: `00000000-0000-4000-8000-00000000000${index}`,
        type: 'message',
        read: false,
      });
      expect(await independentlyVerifies(key.verifyKey, entry)).toBe(true);
      const changed = { ...entry, text: `${entry.text}!` };
      expect(await independentlyVerifies(key.verifyKey, changed)).toBe(false);
      expect(await independentlyVerifies(createLeadKey().verifyKey, entry)).toBe(false);
    },
  );

  it('signs entries that muster verifies with a verify key it formats by hand', async () => {
    const pair = (await subtle.generateKey({ name: 'Ed25519' }, true, [
      'sign',
      'verify',
    ])) as webcrypto.CryptoKeyPair;
    const raw = Buffer.from(await subtle.exportKey('raw', pair.publicKey));
    const verifyKey = `1795490000000.${Buffer.concat([
      Buffer.from('302a300506032b6570032100', 'hex'),
      raw,
    ]).toString('base64url')}`;
    expect(verifyKey).toMatch(/^1795490000000\.MCowBQYDK2VwAyEA/);
    for (const [index, fields] of entries.entries()) {
      const entry: Record<string, unknown> = { ...fields, msg_id: `id-${index}` };
      const signature = await subtle.sign(
        { name: 'Ed25519' },
        pair.privateKey,
        handBuiltPayload(entry),
      );
      entry.lead_sig = Buffer.from(signature).toString('base64url');
      expect(verifyLeadSignature(verifyKey, entry)).toBe(true);
      expect(verifyLeadSignature(verifyKey, { ...entry, from: 'alpha' })).toBe(false);
    }
  });
});
