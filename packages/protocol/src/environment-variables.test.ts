import { describe, expect, it } from 'vitest';
import {
  AGENT_ID_VARIABLE,
  isLeadLinkVariable,
  isModelCredentialVariable,
  LEAD_LINK_VARIABLES,
  LEAD_SOCKET_VARIABLE,
  MEMBER_SECRET_VARIABLE,
} from './index.js';

describe('shared environment variable names', () => {
  it('lists the three lead link variables and recognises only them', () => {
    expect([...LEAD_LINK_VARIABLES].sort()).toEqual(
      ['MUSTER_AGENT_ID', 'MUSTER_LEAD_SOCKET', 'MUSTER_MEMBER_SECRET'].sort(),
    );
    expect([LEAD_SOCKET_VARIABLE, AGENT_ID_VARIABLE, MEMBER_SECRET_VARIABLE]).toEqual([
      'MUSTER_LEAD_SOCKET',
      'MUSTER_AGENT_ID',
      'MUSTER_MEMBER_SECRET',
    ]);
    expect(isLeadLinkVariable('MUSTER_MEMBER_SECRET')).toBe(true);
    expect(isLeadLinkVariable('MUSTER_ROOT')).toBe(false);
    expect(Object.isFrozen(LEAD_LINK_VARIABLES)).toBe(true);
  });

  it('recognises model credentials by exact name and by provider prefix', () => {
    expect(isModelCredentialVariable('ANTHROPIC_API_KEY')).toBe(true);
    expect(isModelCredentialVariable('ANTHROPIC_VERTEX_PROJECT_ID')).toBe(true);
    expect(isModelCredentialVariable('ANTHROPIC_BEDROCK_BASE_URL')).toBe(true);
    expect(isModelCredentialVariable('ANTHROPIC_MODEL')).toBe(false);
    expect(isModelCredentialVariable('ANTHROPIC_BASE_URL')).toBe(false);
  });
});
