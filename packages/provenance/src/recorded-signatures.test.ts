// The lead_sig values Claude Code 2.1.330 wrote verify with muster's verifier and the keys
// recorded for their recipients, and with no other key.
import { describe, expect, it } from 'vitest';
import { createEntryVerifier } from './entry-verifier.js';
import { verifyLeadSignature } from './lead-key.js';
import {
  readRecordedEntry,
  readSignatureExample,
  RECORDED_SIGNED_FILES,
  RECORDED_VERIFY_KEYS,
  recordedSignedFileNames,
} from './test-support.js';

describe('signatures recorded from Claude Code 2.1.330', () => {
  it('signature-example.json verifies with its key', () => {
    const { verifyKey, entry } = readSignatureExample();
    expect(verifyLeadSignature(verifyKey, entry)).toBe(true);
    const check = createEntryVerifier({ verifyKey }).check(entry);
    expect(check).toEqual({ verdict: 'verified', reason: expect.stringContaining('lead_sig') });
  });

  it('the key table covers every *_lead_signed.json file', () => {
    expect(recordedSignedFileNames()).toEqual(Object.keys(RECORDED_SIGNED_FILES).sort());
  });

  it.each(Object.entries(RECORDED_SIGNED_FILES))(
    '%s verifies with its recipient (%s) key only',
    (file, recipient) => {
      const entry = readRecordedEntry(file);
      expect(entry.lead_sig).toMatch(/^[A-Za-z0-9_-]{86}$/);
      for (const [name, key] of Object.entries(RECORDED_VERIFY_KEYS)) {
        expect(verifyLeadSignature(key, entry), `${file} with ${name}'s key`).toBe(
          name === recipient,
        );
      }
      const verifier = createEntryVerifier({
        verifyKey: RECORDED_VERIFY_KEYS[recipient],
        isMember: (name) => name === 'team-lead' || name in RECORDED_VERIFY_KEYS,
      });
      expect(verifier.check(entry).verdict).toBe('verified');
    },
  );

  it('the same recorded entry without its signature is forged for a pane teammate', () => {
    const { verifyKey, entry } = readSignatureExample();
    const { lead_sig: _signature, ...unsigned } = entry;
    expect(verifyLeadSignature(verifyKey, unsigned)).toBe(false);
    expect(createEntryVerifier({ verifyKey }).check(unsigned)).toEqual({
      verdict: 'forged',
      reason: expect.stringContaining('claims to come from "team-lead"'),
    });
  });
});
