/**
 * The protocol messages that change what a member may do or whether it keeps running.
 * A member acts on one only when the entry carrying it is verified as its lead's
 * (`createEntryVerifier`); otherwise it is refused and audited.
 */
export const LEAD_CONTROL_MESSAGE_TYPES = Object.freeze([
  'permission_response',
  'sandbox_permission_response',
  'mode_set_request',
  'team_permission_update',
  'plan_approval_response',
  'shutdown_request',
] as const);

/** One of `LEAD_CONTROL_MESSAGE_TYPES`. */
export type LeadControlMessageType = (typeof LEAD_CONTROL_MESSAGE_TYPES)[number];

/** True when `type` (a protocol message's `type`) is one only the lead may send. */
export function isLeadControlMessageType(type: unknown): type is LeadControlMessageType {
  return (LEAD_CONTROL_MESSAGE_TYPES as readonly unknown[]).includes(type);
}
