// The wire of the lead link: newline-delimited JSON over a Unix socket. A member says `hello`
// (who it is, with the secret its lead made for it) then `ready`; the lead may answer `refused`
// before closing the connection.
import { MAXIMUM_SECRET_LENGTH } from './lead-link-secret.js';

// The names of the variables a process backend sets for its member (socket path, agent id,
// member secret) are @muster/protocol's, so that tool environments can drop the same ones.
export { AGENT_ID_VARIABLE, LEAD_SOCKET_VARIABLE, MEMBER_SECRET_VARIABLE } from '@muster/protocol';

/** Longest line either side accepts; anything longer closes the connection. */
export const MAXIMUM_LINE_BYTES = 64 * 1024;

/** Longest agent id accepted in a hello. */
const MAXIMUM_AGENT_ID_LENGTH = 512;

/** One line a member sends. `secret` is absent only in a hello the lead will refuse. */
export type MemberMessage =
  { type: 'hello'; agentId: string; pid: number; secret?: string } | { type: 'ready' };

/** One line the lead sends (only ever before it closes a connection it refuses). */
export type LeadMessage = { type: 'refused'; reason: string };

/** Parses one member line; a string says what was wrong with it. */
export function parseMemberMessage(line: string): MemberMessage | string {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return `not JSON: ${line.slice(0, 80)}`;
  }
  if (typeof value !== 'object' || value === null) return 'not a JSON object';
  const record = value as Record<string, unknown>;
  if (record.type === 'ready') return { type: 'ready' };
  if (record.type === 'hello') {
    const { agentId, pid } = record;
    if (
      typeof agentId !== 'string' ||
      agentId.length === 0 ||
      agentId.length > MAXIMUM_AGENT_ID_LENGTH
    ) {
      return 'hello without a valid agentId (a non-empty string of at most 512 characters)';
    }
    if (typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 0) {
      return `hello from ${agentId} without a valid pid (a positive integer)`;
    }
    const { secret } = record;
    if (secret === undefined) return { type: 'hello', agentId, pid };
    if (
      typeof secret !== 'string' ||
      secret.length === 0 ||
      secret.length > MAXIMUM_SECRET_LENGTH
    ) {
      return `hello from ${agentId} (pid ${pid}) with a malformed secret (a non-empty string of at most ${MAXIMUM_SECRET_LENGTH} characters)`;
    }
    return { type: 'hello', agentId, pid, secret };
  }
  return `unknown message type ${JSON.stringify(record.type)}`;
}

/** Parses one lead line; undefined for anything that is not a known lead message. */
export function parseLeadMessage(line: string): LeadMessage | undefined {
  try {
    const value = JSON.parse(line) as unknown;
    if (typeof value !== 'object' || value === null) return undefined;
    const record = value as Record<string, unknown>;
    if (record.type === 'refused' && typeof record.reason === 'string') {
      return { type: 'refused', reason: record.reason };
    }
  } catch {
    return undefined;
  }
  return undefined;
}

/**
 * Splits a byte stream into lines. Returns a function to feed chunks to; it calls `onLine`
 * for every complete line and `onOverflow` once if a line grows beyond {@link MAXIMUM_LINE_BYTES}.
 */
export function lineSplitter(
  onLine: (line: string) => void,
  onOverflow: () => void,
): (chunk: Buffer) => void {
  let pending = '';
  let overflowed = false;
  return (chunk) => {
    if (overflowed) return;
    pending += chunk.toString('utf8');
    let newline = pending.indexOf('\n');
    while (newline !== -1) {
      const line = pending.slice(0, newline).trim();
      pending = pending.slice(newline + 1);
      if (line.length > 0) onLine(line);
      newline = pending.indexOf('\n');
    }
    if (pending.length > MAXIMUM_LINE_BYTES) {
      overflowed = true;
      onOverflow();
    }
  };
}
