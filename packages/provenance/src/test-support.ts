// Shared by this package's tests: the recorded Claude Code 2.1.330 signed entries and keys.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { claudeCode2_1_330ReferenceDirectory } from '@muster/test-utils';

/** The pane run's `--lead-verify-key` per recipient (the table in FORMAT.md's Provenance). */
export const RECORDED_VERIFY_KEYS = {
  gamma: '1795479482352.MCowBQYDK2VwAyEALlcsp50y-Vat8k5QT9tag3rRLcGbCq2socJ5P8wesGk',
  alpha: '1795479482997.MCowBQYDK2VwAyEAHacqCPAzlZWew8KghbOSh3vwePHt_lE03YOsulwQp3E',
  beta: '1795479497304.MCowBQYDK2VwAyEAqlN2vF7ltINWFneAdAFP-QITzNqe6YKdZuLlcJ6v4EQ',
} as const;

/** Which teammate each recorded `*_lead_signed.json` entry was written to. */
export const RECORDED_SIGNED_FILES: Record<string, keyof typeof RECORDED_VERIFY_KEYS> = {
  'pane_teammate_initial_prompt_lead_signed.json': 'gamma',
  'permission_response_success_lead_signed.json': 'gamma',
  'permission_response_error_lead_signed.json': 'gamma',
  'task_assignment_lead_signed.json': 'alpha',
  'plain_message_with_summary_from_lead_lead_signed.json': 'alpha',
  'shutdown_request_lead_signed.json': 'alpha',
  'plan_approval_response_approved_lead_signed.json': 'beta',
  'plan_approval_response_rejected_lead_signed.json': 'beta',
};

/** `fixtures/claude-code-2.1.330/protocol`. */
export function protocolFolder(): string {
  return path.join(claudeCode2_1_330ReferenceDirectory(), 'protocol');
}

/** Every `*_lead_signed.json` file in the recorded protocol folder. */
export function recordedSignedFileNames(): string[] {
  return readdirSync(protocolFolder())
    .filter((name) => name.endsWith('_lead_signed.json'))
    .sort();
}

/** One recorded protocol entry, parsed. */
export function readRecordedEntry(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(path.join(protocolFolder(), name), 'utf8')) as Record<
    string,
    unknown
  >;
}

/** `signature-example.json`: a signed entry and the key it verifies against. */
export function readSignatureExample(): { verifyKey: string; entry: Record<string, unknown> } {
  return readRecordedEntry('signature-example.json') as unknown as {
    verifyKey: string;
    entry: Record<string, unknown>;
  };
}
