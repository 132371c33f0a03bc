// The error of the hooks part of @muster/agents.
import { MusterError } from '@muster/protocol';

/** What went wrong, as a stable code. */
export type HookErrorCode = 'INVALID_INPUT';

/** Thrown by `loadHooks` and `runHook` for options or payloads they cannot use. */
export class HookError extends MusterError<HookErrorCode> {}
