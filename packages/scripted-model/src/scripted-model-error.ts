/**
 * An error the scripted model answers with an Anthropic-shaped JSON body:
 * `{"type":"error","error":{"type":errorType,"message":message}}` and HTTP `status`.
 */
export class ScriptedModelError extends Error {
  /** HTTP status of the error reply (400, 401, 404, 405, 413, 429, 500, 529 …). */
  readonly status: number;
  /** Anthropic error type, e.g. `invalid_request_error`, `authentication_error`, `not_found_error`. */
  readonly errorType: string;

  /** Creates an error replied as `status` with `{type:"error",error:{type:errorType,message}}`. */
  constructor(status: number, errorType: string, message: string) {
    super(message);
    this.name = 'ScriptedModelError';
    this.status = status;
    this.errorType = errorType;
  }

  /** The Anthropic-shaped JSON body of this error. */
  toBody(): { type: 'error'; error: { type: string; message: string } } {
    return { type: 'error', error: { type: this.errorType, message: this.message } };
  }
}
