import { isDeepStrictEqual } from 'node:util';
import { inputDigest } from '@muster/provenance';
import type { PermissionResponse } from '@muster/protocol';

/** The request a worker sent, as far as checking its answer needs. */
export interface AskedRequest {
  requestId: string;
  toolName: string;
  toolUseId: string;
  input: Record<string, unknown>;
}

/**
 * Why a (verified) `permission_response` cannot be applied to the request it names, or
 * undefined when it fits: its `tool_use_id` and `approved_request` (tool, tool_use_id and
 * `input_digest` = `inputDigest(tool_name, input)` of the request) must be the request's,
 * and an approval must carry the asked input unchanged. A lead that wants other input run
 * denies with a message saying so; the worker asks again.
 */
export function permissionResponseProblem(
  response: PermissionResponse,
  asked: AskedRequest,
): string | undefined {
  const record = response as PermissionResponse & {
    tool_use_id?: unknown;
    approved_request?: { tool_use_id?: unknown; tool_name?: unknown; input_digest?: unknown };
  };
  if (record.tool_use_id !== undefined && record.tool_use_id !== asked.toolUseId) {
    return `permission_response for ${asked.requestId} names tool_use_id ${JSON.stringify(record.tool_use_id)}, but the request was for ${asked.toolUseId}`;
  }
  const approved = record.approved_request;
  if (approved !== undefined) {
    if (approved === null || typeof approved !== 'object') {
      return `permission_response for ${asked.requestId} has an approved_request that is not an object`;
    }
    if (approved.tool_name !== undefined && approved.tool_name !== asked.toolName) {
      return `permission_response for ${asked.requestId} approves the tool ${JSON.stringify(approved.tool_name)}, but ${asked.toolName} was asked`;
    }
    if (approved.tool_use_id !== undefined && approved.tool_use_id !== asked.toolUseId) {
      return `permission_response for ${asked.requestId} approves tool_use_id ${JSON.stringify(approved.tool_use_id)}, but the request was for ${asked.toolUseId}`;
    }
    if (approved.input_digest !== undefined) {
      const expected = inputDigest(asked.toolName, asked.input);
      if (approved.input_digest !== expected) {
        return `permission_response for ${asked.requestId} carries input_digest ${String(approved.input_digest)}, not the digest of the input that was asked (${expected}): it approves other input`;
      }
    }
  }
  if (response.subtype === 'success') {
    const updated = response.response.updated_input;
    // Compared as JSON: what was sent is what the request carried on the wire.
    if (!isDeepStrictEqual(updated, JSON.parse(JSON.stringify(asked.input)))) {
      return `permission_response for ${asked.requestId} approves other input than was asked (${JSON.stringify(updated).slice(0, 300)} instead of ${JSON.stringify(asked.input).slice(0, 300)}); only the asked input may run`;
    }
  }
  return undefined;
}
