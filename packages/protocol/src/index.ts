export { MusterError, ProtocolError } from './errors.js';
export type { MusterErrorOptions, ProtocolErrorCode } from './errors.js';
