const musterErrorBrand = Symbol.for('muster.error');

export interface MusterErrorOptions<Code extends string = string> {
  /** Stable, machine-readable reason, e.g. `LOCK_TIMEOUT`. Callers branch on this. */
  code: Code;
  /** What failed, on which file or name, and what to do next. */
  message: string;
  /** The lower-level error that caused this one, if any. */
  cause?: unknown;
  /** Structured details for programs (paths, names, suggestions). */
  details?: Record<string, unknown>;
}

/**
 * The base class of every error muster throws. Each package subclasses it with its own
 * codes (`MailboxError`, `TaskError`, …). Use `MusterError.isInstance(value)` rather than
 * `instanceof`: it also recognises errors from another copy of the package.
 */
export class MusterError<Code extends string = string> extends Error {
  readonly [musterErrorBrand] = true;
  readonly code: Code;
  readonly details: Record<string, unknown>;

  constructor(options: MusterErrorOptions<Code>) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = options.code;
    this.details = options.details ?? {};
  }

  /** True for any muster error, whichever copy of the package created it. */
  static isInstance(value: unknown): value is MusterError {
    return typeof value === 'object' && value !== null && musterErrorBrand in value;
  }

  /** True when `value` is a muster error with the given code. */
  static hasCode<Code extends string>(value: unknown, code: Code): value is MusterError<Code> {
    return MusterError.isInstance(value) && value.code === code;
  }
}

export type ProtocolErrorCode =
  | 'INVALID_NAME'
  | 'PATH_ESCAPES_ROOT'
  | 'INVALID_AGENT_ID'
  | 'INVALID_JSON'
  | 'SCHEMA_MISMATCH'
  | 'INVALID_INPUT';

/** Errors raised by the protocol package's pure helpers (names, paths, parsing). */
export class ProtocolError extends MusterError<ProtocolErrorCode> {}
