import { describe, expect, it } from 'vitest';
import { MusterError, ProtocolError } from './errors.js';

describe('MusterError', () => {
  it('carries code, message, cause and details', () => {
    const cause = new Error('disk full');
    const error = new ProtocolError({
      code: 'INVALID_NAME',
      message: 'The team name "" cannot be used.',
      cause,
      details: { value: '' },
    });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('ProtocolError');
    expect(error.code).toBe('INVALID_NAME');
    expect(error.message).toBe('The team name "" cannot be used.');
    expect(error.cause).toBe(cause);
    expect(error.details).toEqual({ value: '' });
    expect(new MusterError({ code: 'X', message: 'm' }).details).toEqual({});
    expect('cause' in new MusterError({ code: 'X', message: 'm' })).toBe(false);
  });

  it('recognises errors from another copy of the package by brand, not by class', () => {
    const foreign = Object.assign(new Error('copy'), {
      [Symbol.for('muster.error')]: true,
      code: 'LOCK_TIMEOUT',
    });
    expect(MusterError.isInstance(foreign)).toBe(true);
    expect(MusterError.hasCode(foreign, 'LOCK_TIMEOUT')).toBe(true);
    expect(MusterError.hasCode(foreign, 'OTHER')).toBe(false);
    expect(MusterError.isInstance(new Error('plain'))).toBe(false);
    expect(MusterError.isInstance(null)).toBe(false);
    expect(MusterError.isInstance('INVALID_NAME')).toBe(false);
  });
});
