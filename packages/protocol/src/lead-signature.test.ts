// The signing and digest payloads must be byte for byte what Claude Code 2.1.330 signs and
// hashes: checked against the recorded signature and digests of its reference files, with
// node:crypto standing in for @muster/provenance.
import { createHash, createPublicKey, verify } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { claudeCode2_1_330ReferenceDirectory } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import {
  canonicalJson,
  inputDigestPayload,
  LEAD_SIGNATURE_CONTEXT,
  leadSignaturePayload,
  type LeadSignedFields,
} from './lead-signature.js';

const protocolFolder = path.join(claudeCode2_1_330ReferenceDirectory(), 'protocol');
const readEntry = (file: string) =>
  JSON.parse(readFileSync(path.join(protocolFolder, file), 'utf8')) as LeadSignedFields & {
    lead_sig?: string;
  };

/** Verifies `signature` over `payload` with a `--lead-verify-key` value. */
function verifies(verifyKey: string, payload: string, signature: string): boolean {
  const spki = Buffer.from(verifyKey.slice(verifyKey.indexOf('.') + 1), 'base64url');
  const key = createPublicKey({ key: spki, format: 'der', type: 'spki' });
  return verify(null, Buffer.from(payload, 'utf8'), key, Buffer.from(signature, 'base64url'));
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

describe('leadSignaturePayload', () => {
  const example = JSON.parse(
    readFileSync(path.join(protocolFolder, 'signature-example.json'), 'utf8'),
  ) as {
    verifyKey: string;
    entry: LeadSignedFields & { lead_sig: string };
  };

  it('is what Claude Code 2.1.330 signed: the recorded lead_sig verifies over it', () => {
    expect(LEAD_SIGNATURE_CONTEXT).toBe('claude-team-lead-entry-v1');
    const payload = leadSignaturePayload(example.entry);
    expect(verifies(example.verifyKey, payload, example.entry.lead_sig)).toBe(true);
  });

  it('covers every signed field: changing one breaks the recorded signature', () => {
    for (const change of [
      { text: `${example.entry.text} ` },
      { from: 'alpha' },
      { msg_id: '00000000-0000-4000-8000-000000000000' },
      { timestamp: '2026-11-24T00:18:07.786Z' },
      { summary: 'added' },
      { color: 'blue' },
      { from_plugin: 'plugin' },
    ]) {
      const payload = leadSignaturePayload({ ...example.entry, ...change });
      expect(
        verifies(example.verifyKey, payload, example.entry.lead_sig),
        JSON.stringify(change),
      ).toBe(false);
    }
  });

  it('leaves read, msgV, type and lead_sig out, and writes absent optional fields as null', () => {
    const payload = leadSignaturePayload({
      msg_id: 'id',
      from: 'team-lead',
      timestamp: 't',
      text: 'hi',
      read: true,
      msgV: 1,
      type: 'message',
      lead_sig: 'x',
    } as LeadSignedFields);
    expect(payload).toBe('["claude-team-lead-entry-v1","id","team-lead","t","hi",null,null,null]');
  });

  it.each([
    [{ from: 'team-lead', timestamp: 't', text: 'hi' }, 'entry.msg_id must be a string'],
    [{ msg_id: 'id', from: 'team-lead', timestamp: 't', text: 7 }, 'entry.text must be a string'],
    [
      { msg_id: 'id', from: 'team-lead', timestamp: 't', text: 'hi', summary: null },
      'entry.summary must be a string when present',
    ],
  ])('refuses an entry it cannot sign: %j', (entry, message) => {
    expect(() => leadSignaturePayload(entry as unknown as LeadSignedFields)).toThrow(message);
  });

  it('every lead-signed sample verifies with the key the pane run recorded for its recipient', () => {
    const keys = {
      gamma: '1795479482352.MCowBQYDK2VwAyEALlcsp50y-Vat8k5QT9tag3rRLcGbCq2socJ5P8wesGk',
      alpha: '1795479482997.MCowBQYDK2VwAyEAHacqCPAzlZWew8KghbOSh3vwePHt_lE03YOsulwQp3E',
      beta: '1795479497304.MCowBQYDK2VwAyEAqlN2vF7ltINWFneAdAFP-QITzNqe6YKdZuLlcJ6v4EQ',
    };
    const recipients: Record<string, keyof typeof keys> = {
      'pane_teammate_initial_prompt_lead_signed.json': 'gamma',
      'permission_response_success_lead_signed.json': 'gamma',
      'permission_response_error_lead_signed.json': 'gamma',
      'task_assignment_lead_signed.json': 'alpha',
      'plain_message_with_summary_from_lead_lead_signed.json': 'alpha',
      'shutdown_request_lead_signed.json': 'alpha',
      'plan_approval_response_approved_lead_signed.json': 'beta',
      'plan_approval_response_rejected_lead_signed.json': 'beta',
    };
    for (const [file, recipient] of Object.entries(recipients)) {
      const entry = readEntry(file);
      expect(entry.lead_sig, file).toBeDefined();
      expect(verifies(keys[recipient], leadSignaturePayload(entry), entry.lead_sig!), file).toBe(
        true,
      );
      const other = recipient === 'gamma' ? keys.alpha : keys.gamma;
      expect(verifies(other, leadSignaturePayload(entry), entry.lead_sig!), file).toBe(false);
    }
  });
});

describe('canonicalJson', () => {
  it('sorts object keys recursively and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}',
    );
    expect(canonicalJson('text')).toBe('"text"');
    expect(canonicalJson([{ b: 1, a: 2 }])).toBe('[{"a":2,"b":1}]');
  });

  it('refuses what has no JSON text', () => {
    expect(() => canonicalJson(undefined)).toThrow('has no JSON text');
    expect(() => canonicalJson(() => 1)).toThrow('has no JSON text');
    expect(() => canonicalJson({ big: 1n })).toThrow('cannot be encoded as JSON');
  });
});

describe('inputDigestPayload', () => {
  it('hashes to the input_digest Claude Code 2.1.330 wrote for the request it answered', () => {
    const request = JSON.parse(readEntry('permission_request.json').text) as {
      tool_name: string;
      input: Record<string, unknown>;
    };
    const response = JSON.parse(readEntry('permission_response_success_lead_signed.json').text) as {
      request_id: string;
      approved_request: { tool_name: string; input_digest: string };
    };
    expect(response.request_id).toBe((request as unknown as { request_id: string }).request_id);
    expect(sha256(inputDigestPayload(request.tool_name, request.input))).toBe(
      response.approved_request.input_digest,
    );
  });

  it('a plan digest is the hex SHA-256 of the request planContent (recorded approval)', () => {
    const request = JSON.parse(readEntry('plan_approval_request.json').text) as {
      requestId: string;
      planContent: string;
    };
    const approval = JSON.parse(readEntry('plan_approval_response_approved.json').text) as {
      requestId: string;
      planDigest: string;
    };
    expect(approval.requestId).toBe(request.requestId);
    expect(sha256(request.planContent)).toBe(approval.planDigest);
  });

  it('is the tool name, a NUL and the canonical input', () => {
    expect(inputDigestPayload('Bash', { timeout: 5, command: 'ls' })).toBe(
      'Bash\0{"command":"ls","timeout":5}',
    );
    expect(sha256(inputDigestPayload('Bash', { command: 'ls' }))).not.toBe(
      sha256(inputDigestPayload('Bash', { command: 'curl x | sh' })),
    );
  });

  it('refuses a missing tool name or an input that is not an object', () => {
    expect(() => inputDigestPayload('', {})).toThrow('toolName must be the non-empty tool name');
    expect(() => inputDigestPayload('Bash', ['ls'])).toThrow('got an array');
    expect(() => inputDigestPayload('Bash', null)).toThrow('got null');
  });
});
