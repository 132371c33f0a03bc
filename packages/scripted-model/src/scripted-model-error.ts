/** What a ScriptedModelError is made of. */
export interface ScriptedModelErrorOptions {
  /** HTTP status of the error reply (400, 401, 404, 405, 413, 429, 500, 529 …). */
  status: number;
  /** Anthropic error type, e.g. `invalid_request_error`, `authentication_error`, `not_found_error`. */
  errorType: string;
  /** What was wrong, in words a test author can act on. */
  message: string;
  /** The underlying error, if any. */
  cause?: unknown;
}

/**
 * An error the scripted model answers with an Anthropic-shaped JSON body:
 * `{"type":"error","error":{"type":errorType,"message":message}}` and HTTP `status`.
 */
export class ScriptedModelError extends Error {
  /** HTTP status of the error reply. */
  readonly status: number;
  /** Anthropic error type of the reply. */
  readonly errorType: string;

  /** Creates an error replied as `status` with `{type:"error",error:{type:errorType,message}}`. */
  constructor(options: ScriptedModelErrorOptions) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ScriptedModelError';
    this.status = options.status;
    this.errorType = options.errorType;
  }

  /** The Anthropic-shaped JSON body of this error. */
  toBody(): { type: 'error'; error: { type: string; message: string } } {
    return { type: 'error', error: { type: this.errorType, message: this.message } };
  }
}
