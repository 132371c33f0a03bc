// The digests 2.1.330 puts in permission and plan answers, checked against recorded entries.
import { describe, expect, it } from 'vitest';
import { inputDigest, planDigest } from './digests.js';
import { ProvenanceError } from './provenance-error.js';
import { readRecordedEntry } from './test-support.js';

const payload = (file: string) =>
  JSON.parse(String(readRecordedEntry(file).text)) as Record<string, unknown>;

describe('digests', () => {
  it('inputDigest matches the input_digest Claude Code wrote for the recorded request', () => {
    const request = payload('permission_request.json');
    // permission_response_success answers this request (the error one answers another).
    const response = payload('permission_response_success_lead_signed.json') as {
      request_id: string;
      approved_request: { input_digest: string };
    };
    expect(response.request_id).toBe(request.request_id);
    expect(inputDigest(String(request.tool_name), request.input)).toBe(
      response.approved_request.input_digest,
    );
  });

  it('inputDigest sorts keys at every depth and tells tools and inputs apart', () => {
    const digest = inputDigest('Bash', { command: 'ls', options: { b: 1, a: [{ z: 1, y: 2 }] } });
    expect(inputDigest('Bash', { options: { a: [{ y: 2, z: 1 }], b: 1 }, command: 'ls' })).toBe(
      digest,
    );
    expect(
      inputDigest('Bash', { command: 'ls -a', options: { b: 1, a: [{ z: 1, y: 2 }] } }),
    ).not.toBe(digest);
    expect(
      inputDigest('Write', { command: 'ls', options: { b: 1, a: [{ z: 1, y: 2 }] } }),
    ).not.toBe(digest);
    expect(() => inputDigest('', {})).toThrow(ProvenanceError);
    expect(() => inputDigest('Bash', undefined)).toThrow(ProvenanceError);
  });

  it('planDigest matches the planDigest of the recorded automatic approval', () => {
    const request = payload('plan_approval_request.json');
    const approval = payload('plan_approval_response_approved_lead_signed.json');
    expect(planDigest(String(request.planContent))).toBe(approval.planDigest);
    expect(planDigest('# Plan')).not.toBe(approval.planDigest);
  });
});
