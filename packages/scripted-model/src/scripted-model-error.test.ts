import { describe, expect, it } from 'vitest';
import { ScriptedModelError } from './scripted-model-error.ts';

describe('ScriptedModelError', () => {
  it('carries the status and an Anthropic-shaped body', () => {
    const error = new ScriptedModelError({
      status: 400,
      errorType: 'invalid_request_error',
      message: 'max_tokens: Field required',
    });
    expect(error.status).toBe(400);
    expect(error.toBody()).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'max_tokens: Field required' },
    });
  });
});
