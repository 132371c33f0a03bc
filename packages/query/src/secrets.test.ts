import {
  LEAD_LINK_VARIABLES,
  MODEL_CREDENTIAL_VARIABLES as PROTOCOL_MODEL_CREDENTIAL_VARIABLES,
} from '@muster/protocol';
import { describe, expect, it } from 'vitest';
import {
  createSecretRedactor,
  credentialValues,
  MODEL_CREDENTIAL_VARIABLES,
  scrubEnvironment,
} from './secrets.js';

describe('scrubEnvironment', () => {
  it('drops model credentials and undefined values, keeps the rest, and changes nothing it is given', () => {
    const environment = {
      PATH: '/usr/bin',
      HOME: '/home/a',
      ANTHROPIC_API_KEY: 'sk-ant-api03-secret',
      ANTHROPIC_AUTH_TOKEN: 'token-secret',
      CLAUDE_CODE_OAUTH_TOKEN: 'oauth-secret',
      AWS_BEARER_TOKEN_BEDROCK: 'bedrock-secret',
      ANTHROPIC_BEDROCK_BASE_URL: 'https://bedrock.example',
      ANTHROPIC_VERTEX_PROJECT_ID: 'project',
      ANTHROPIC_MODEL: 'sonnet',
      EMPTY: '',
      GONE: undefined,
    };
    const copy = { ...environment };
    expect(scrubEnvironment(environment)).toEqual({
      PATH: '/usr/bin',
      HOME: '/home/a',
      ANTHROPIC_MODEL: 'sonnet',
      EMPTY: '',
    });
    expect(environment).toEqual(copy);
    expect(MODEL_CREDENTIAL_VARIABLES).toContain('ANTHROPIC_API_KEY');
  });

  it('drops the lead link variables of a member process, so a tool command cannot speak for the member', () => {
    const memberEnvironment = {
      PATH: '/usr/bin',
      MUSTER_LEAD_SOCKET: '/tmp/team/.lead.sock',
      MUSTER_AGENT_ID: 'worker@alpha',
      MUSTER_MEMBER_SECRET: 'a-secret-of-the-member',
      MUSTER_ROOT: '/home/a/.claude',
    };
    const toolEnvironment = scrubEnvironment(memberEnvironment);
    for (const name of LEAD_LINK_VARIABLES) expect(toolEnvironment).not.toHaveProperty(name);
    expect(LEAD_LINK_VARIABLES).toHaveLength(3);
    expect(toolEnvironment).toEqual({ PATH: '/usr/bin', MUSTER_ROOT: '/home/a/.claude' });
    // The same list @muster/backends uses for members: one source.
    expect(MODEL_CREDENTIAL_VARIABLES).toBe(PROTOCOL_MODEL_CREDENTIAL_VARIABLES);
  });

  it('lists the credential values for the redactor', () => {
    expect(
      credentialValues({
        ANTHROPIC_API_KEY: 'sk-1',
        ANTHROPIC_AUTH_TOKEN: '',
        PATH: '/bin',
        X: undefined,
      }),
    ).toEqual(['sk-1']);
  });

  it('refuses what is not an environment object', () => {
    expect(() => scrubEnvironment(null as never)).toThrow(/environment must be an object/);
    expect(() => scrubEnvironment(['A=1'] as never)).toThrow(/got an array/);
  });
});

describe('createSecretRedactor', () => {
  it('replaces every occurrence of each secret of 8 or more characters, longest first', () => {
    const redact = createSecretRedactor(['sk-ant-0123456789', 'sk-ant-0123', 'short', '']);
    expect(redact('key sk-ant-0123456789 and sk-ant-0123 and sk-ant-0123456789 short')).toBe(
      'key [redacted] and [redacted] and [redacted] short',
    );
    expect(redact('nothing here')).toBe('nothing here');
  });

  it('keeps its own copy of the secrets', () => {
    const secrets = ['first-secret'];
    const redact = createSecretRedactor(secrets);
    secrets.push('second-secret');
    expect(redact('first-secret second-secret')).toBe('[redacted] second-secret');
  });

  it('refuses a non-array', () => {
    expect(() => createSecretRedactor('sk-ant' as never)).toThrow(/secrets must be an array/);
  });
});
