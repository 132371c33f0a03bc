import { MusterError } from '@muster/protocol';
import { describe, expect, it } from 'vitest';
import {
  formatPermissionRule,
  parsePermissionRule,
  parsePermissionRuleSet,
  toPermissionRule,
} from './permission-rule.js';

describe('parsePermissionRule', () => {
  it.each([
    ['Bash', { toolName: 'Bash' }],
    ['Bash(git:*)', { toolName: 'Bash', ruleContent: 'git:*' }],
    ['Read(~/**)', { toolName: 'Read', ruleContent: '~/**' }],
    ['Edit(src/**)', { toolName: 'Edit', ruleContent: 'src/**' }],
    ['  Bash( npm run test:* ) ', { toolName: 'Bash', ruleContent: 'npm run test:*' }],
    ['Bash(echo (hi))', { toolName: 'Bash', ruleContent: 'echo (hi)' }],
    ['Bash(echo \\(hi)', { toolName: 'Bash', ruleContent: 'echo (hi' }],
    ['mcp__github__create_issue', { toolName: 'mcp__github__create_issue' }],
    ['WebFetch(domain:example.com)', { toolName: 'WebFetch', ruleContent: 'domain:example.com' }],
  ])('parses %s', (text, expected) => {
    expect(parsePermissionRule(text)).toEqual(expected);
  });

  it.each([
    ['Bash(', 'never closed'],
    ['(x)', 'tool name before "(" is missing'],
    ['Bash(a)(b)', 'text after the closing parenthesis'],
    ['Bash()', 'specifier in parentheses is empty'],
    ['', 'empty'],
    ['Ba sh', 'is not a tool name'],
    ['Bash (git:*)', 'is not a tool name'],
    ['Bash)', 'without a matching "("'],
    ['Bash(echo (hi)', 'never closed'],
  ])('rejects %j with a message saying %s', (text, problem) => {
    let caught: unknown;
    try {
      parsePermissionRule(text);
    } catch (error) {
      caught = error;
    }
    expect(MusterError.hasCode(caught, 'INVALID_RULE')).toBe(true);
    const message = (caught as Error).message;
    expect(message).toContain(problem);
    expect(message).toContain(JSON.stringify(text));
    expect(message).toContain('Bash(git:*)');
  });

  it('formats rules back so that they parse to the same rule', () => {
    for (const text of ['Bash', 'Bash(git:*)', 'Read(~/**)', 'Bash(echo (hi))', 'Bash(a\\(b)']) {
      const rule = parsePermissionRule(text);
      expect(parsePermissionRule(formatPermissionRule(rule))).toEqual(rule);
    }
    expect(formatPermissionRule({ toolName: 'Edit', ruleContent: 'src/**' })).toBe('Edit(src/**)');
  });

  it('checks rule objects as strictly as strings', () => {
    expect(toPermissionRule({ toolName: 'Bash', ruleContent: ' git:* ' })).toEqual({
      toolName: 'Bash',
      ruleContent: 'git:*',
    });
    expect(() => toPermissionRule({ toolName: 'Bash(git:*)' })).toThrow(/must not contain/);
    expect(() => toPermissionRule({ toolName: 'Bash', ruleContent: ' ' })).toThrow(/empty/);
    expect(() => parsePermissionRuleSet({ allow: ['Read'], deny: ['Bash('] })).toThrow(
      /"Bash\(" is malformed/,
    );
  });
});
