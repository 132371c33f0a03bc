import { PermissionsError } from './permissions-error.js';

/**
 * A parsed permission rule: a tool name, optionally with what inside the tool it covers.
 * Same shape as the protocol's `PermissionRuleValue`, so rules travel unchanged in
 * `permission_updates`.
 */
export interface PermissionRule {
  /** Tool the rule is about, e.g. `Bash`, `Edit`, `mcp__github`. */
  toolName: string;
  /** What inside the tool, e.g. `git:*` or `src/**`; absent when the rule covers the whole tool. */
  ruleContent?: string;
}

/** The three kinds of rule list an agent has. */
export interface PermissionRuleSet {
  /** Calls that run without asking. */
  allow: ReadonlyArray<string | PermissionRule>;
  /** Calls that never run, whatever the mode. */
  deny: ReadonlyArray<string | PermissionRule>;
  /** Calls that always ask, even when an allow rule or the mode would allow them. */
  ask: ReadonlyArray<string | PermissionRule>;
}

const TOOL_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_-]*$/;
const EXAMPLES = 'Examples: "Bash", "Bash(git:*)", "Read(~/**)", "Edit(src/**)".';

function invalidRule(rule: string, problem: string): PermissionsError {
  return new PermissionsError({
    code: 'INVALID_RULE',
    message: `The permission rule ${JSON.stringify(rule)} is malformed: ${problem}. Write a tool name, optionally followed by one parenthesised specifier. ${EXAMPLES}`,
    details: { rule, problem },
  });
}

/**
 * Parses a rule string: `Tool` or `Tool(specifier)`. Parentheses inside the specifier must
 * balance (or be escaped as `\(` `\)`). Throws `PermissionsError` `INVALID_RULE` with what is
 * wrong and an example for anything else (`Bash(`, `(x)`, `Bash(a)(b)`, `Bash()`, `Ba sh`).
 */
export function parsePermissionRule(rule: string): PermissionRule {
  if (typeof rule !== 'string') {
    throw invalidRule(String(rule), `expected a string, got ${typeof rule}`);
  }
  const text = rule.trim();
  if (text === '') throw invalidRule(rule, 'it is empty');
  const open = text.indexOf('(');
  if (open === -1) {
    if (text.includes(')')) throw invalidRule(rule, 'it has a ")" without a matching "("');
    if (!TOOL_NAME_PATTERN.test(text)) {
      throw invalidRule(
        rule,
        `${JSON.stringify(text)} is not a tool name (letters, digits, "_" and "-", starting with a letter or "_")`,
      );
    }
    return { toolName: text };
  }
  const toolName = text.slice(0, open);
  if (toolName === '') throw invalidRule(rule, 'the tool name before "(" is missing');
  if (!TOOL_NAME_PATTERN.test(toolName)) {
    throw invalidRule(
      rule,
      `${JSON.stringify(toolName)} is not a tool name (letters, digits, "_" and "-", no spaces)`,
    );
  }
  let depth = 0;
  let close = -1;
  for (let index = open; index < text.length; index += 1) {
    const character = text[index];
    if (character === '\\') {
      index += 1;
      continue;
    }
    if (character === '(') depth += 1;
    if (character === ')') {
      depth -= 1;
      if (depth === 0) {
        close = index;
        break;
      }
    }
  }
  if (close === -1) throw invalidRule(rule, 'the "(" after the tool name is never closed');
  if (close !== text.length - 1) {
    throw invalidRule(
      rule,
      `there is text after the closing parenthesis (${JSON.stringify(text.slice(close + 1))}); a rule has at most one specifier`,
    );
  }
  const ruleContent = text.slice(open + 1, close).trim();
  if (ruleContent === '') {
    throw invalidRule(rule, 'the specifier in parentheses is empty; write the tool name alone');
  }
  return { toolName, ruleContent: ruleContent.replace(/\\([()])/g, '$1') };
}

/** Formats a rule back to its string form (`Bash(git:*)`), escaping parentheses in the specifier. */
export function formatPermissionRule(rule: PermissionRule): string {
  if (rule.ruleContent === undefined) return rule.toolName;
  return `${rule.toolName}(${rule.ruleContent.replace(/[()]/g, '\\$&')})`;
}

/** Parses a rule unless it already is one; objects are checked like strings. */
export function toPermissionRule(rule: string | PermissionRule): PermissionRule {
  if (typeof rule === 'string') return parsePermissionRule(rule);
  const parsed = parsePermissionRule(rule.toolName);
  if (parsed.ruleContent !== undefined) {
    throw invalidRule(rule.toolName, 'the toolName field must not contain a specifier');
  }
  if (rule.ruleContent === undefined) return { toolName: parsed.toolName };
  if (rule.ruleContent.trim() === '') {
    throw invalidRule(
      formatPermissionRule(rule),
      'the specifier is empty; leave ruleContent out to cover the whole tool',
    );
  }
  return { toolName: parsed.toolName, ruleContent: rule.ruleContent.trim() };
}

/** Parsed copy of a rule set; throws `INVALID_RULE` naming the first malformed rule. */
export function parsePermissionRuleSet(rules: Partial<PermissionRuleSet>): {
  allow: PermissionRule[];
  deny: PermissionRule[];
  ask: PermissionRule[];
} {
  return {
    allow: (rules.allow ?? []).map(toPermissionRule),
    deny: (rules.deny ?? []).map(toPermissionRule),
    ask: (rules.ask ?? []).map(toPermissionRule),
  };
}

/** True when two rules are the same rule (same tool, same specifier). */
export function isSameRule(left: PermissionRule, right: PermissionRule): boolean {
  return left.toolName === right.toolName && left.ruleContent === right.ruleContent;
}
