import { MusterError, type PermissionMode, type TeamAllowedPath } from '@muster/protocol';
import { describe, expect, it } from 'vitest';
import {
  decidePermission,
  type DecisionReasonKind,
  type PermissionBehavior,
  type PermissionDecisionInput,
} from './decide-permission.js';
import type { PermissionRuleSet } from './permission-rule.js';

const home = '/home/ann';
const repo = '/work/repo';
const plan = '/home/ann/.claude/plans/brave-otter.md';
const teamPaths: TeamAllowedPath[] = [
  { path: '/data/shared', toolName: 'Edit', addedBy: 'team-lead', addedAt: 1 },
];

interface Row {
  mode: PermissionMode;
  rules?: Partial<PermissionRuleSet>;
  tool: string;
  input: Record<string, unknown>;
  readOnly?: boolean;
  extra?: Partial<PermissionDecisionInput>;
  expected: PermissionBehavior;
  kind: DecisionReasonKind;
  rule?: string;
}

const bash = (command: string) => ({ command });
const file = (file_path: string) => ({ file_path });

// mode × rule × tool × path → verdict + reason kind. One row per line: not reformatted.
const R = true; // read-only
const W = false; // not read-only
// prettier-ignore
const table: Array<[string, Row]> = [
  // default mode
  ['default: read inside the repo', { mode: 'default', tool: 'Read', input: file('src/a.ts'), readOnly: R, expected: 'allow', kind: 'readOnly' }],
  ['default: read outside the repo asks', { mode: 'default', tool: 'Read', input: file('/etc/passwd'), readOnly: R, expected: 'ask', kind: 'outsideWorkingDirectories' }],
  ['default: read escaping with .. asks', { mode: 'default', tool: 'Read', input: file('src/../../other/x'), readOnly: R, expected: 'ask', kind: 'outsideWorkingDirectories' }],
  ['default: read in a second working directory', { mode: 'default', tool: 'Read', input: file('/work/lib/x.ts'), readOnly: R, expected: 'allow', kind: 'readOnly' }],
  ['default: Read(~/**) allows a home file', { mode: 'default', rules: { allow: ['Read(~/**)'] }, tool: 'Read', input: file('~/.config/x'), readOnly: R, expected: 'allow', kind: 'allowRule', rule: 'Read(~/**)' }],
  ['default: Read(~/**) also covers Grep', { mode: 'default', rules: { allow: ['Read(~/**)'] }, tool: 'Grep', input: { pattern: 'x', path: '/home/ann/notes' }, readOnly: R, expected: 'allow', kind: 'allowRule' }],
  ['default: Read(~/**) does not reach /etc', { mode: 'default', rules: { allow: ['Read(~/**)'] }, tool: 'Read', input: file('/etc/hosts'), readOnly: R, expected: 'ask', kind: 'outsideWorkingDirectories' }],
  ['default: edit without a rule asks', { mode: 'default', tool: 'Edit', input: file('src/a.ts'), expected: 'ask', kind: 'noRule' }],
  ['default: Edit(src/**) allows src', { mode: 'default', rules: { allow: ['Edit(src/**)'] }, tool: 'Edit', input: file('src/deep/a.ts'), expected: 'allow', kind: 'allowRule', rule: 'Edit(src/**)' }],
  ['default: Edit(src/**) covers Write too', { mode: 'default', rules: { allow: ['Edit(src/**)'] }, tool: 'Write', input: file('/work/repo/src/new.ts'), expected: 'allow', kind: 'allowRule' }],
  ['default: Edit(src/**) not fooled by ..', { mode: 'default', rules: { allow: ['Edit(src/**)'] }, tool: 'Edit', input: file('src/../package.json'), expected: 'ask', kind: 'noRule' }],
  ['default: Edit(src/**) does not cover srcx', { mode: 'default', rules: { allow: ['Edit(src/**)'] }, tool: 'Edit', input: file('srcx/a.ts'), expected: 'ask', kind: 'noRule' }],
  ['default: Bash(git:*) allows git status', { mode: 'default', rules: { allow: ['Bash(git:*)'] }, tool: 'Bash', input: bash('git status'), expected: 'allow', kind: 'allowRule', rule: 'Bash(git:*)' }],
  ['default: Bash(git:*) not fooled by git;rm', { mode: 'default', rules: { allow: ['Bash(git:*)'] }, tool: 'Bash', input: bash('git;rm -rf /'), expected: 'ask', kind: 'noRule' }],
  ['default: Bash(git:*) not fooled by git && rm', { mode: 'default', rules: { allow: ['Bash(git:*)'] }, tool: 'Bash', input: bash('git status && rm -rf /'), expected: 'ask', kind: 'noRule' }],
  ['default: Bash(git:*) not fooled by $(…)', { mode: 'default', rules: { allow: ['Bash(git:*)'] }, tool: 'Bash', input: bash('git log $(rm -rf /)'), expected: 'ask', kind: 'noRule' }],
  ['default: Bash(git:*) not fooled by a file redirect', { mode: 'default', rules: { allow: ['Bash(git:*)'] }, tool: 'Bash', input: bash('git log > ~/.bashrc'), expected: 'ask', kind: 'noRule' }],
  ['default: Bash(git:*) does not cover gitk', { mode: 'default', rules: { allow: ['Bash(git:*)'] }, tool: 'Bash', input: bash('gitk'), expected: 'ask', kind: 'noRule' }],
  ['default: every part allowed by some rule', { mode: 'default', rules: { allow: ['Bash(git:*)', 'Bash(npm test)'] }, tool: 'Bash', input: bash('npm test && git push 2>&1'), expected: 'allow', kind: 'allowRule', rule: 'Bash(npm test), Bash(git:*)' }],
  ['default: deny rule hits the second part', { mode: 'default', rules: { allow: ['Bash'], deny: ['Bash(rm:*)'] }, tool: 'Bash', input: bash('git status; rm -rf /'), expected: 'deny', kind: 'denyRule', rule: 'Bash(rm:*)' }],
  ['default: deny rule hits inside $(…)', { mode: 'default', rules: { deny: ['Bash(rm:*)'] }, tool: 'Bash', input: bash('echo $(rm -rf /)'), expected: 'deny', kind: 'denyRule' }],
  ['default: deny beats allow', { mode: 'default', rules: { allow: ['Read'], deny: ['Read(~/.ssh/**)'] }, tool: 'Read', input: file('~/.ssh/id_rsa'), readOnly: R, expected: 'deny', kind: 'denyRule', rule: 'Read(~/.ssh/**)' }],
  ['default: deny of a whole tool', { mode: 'default', rules: { deny: ['WebFetch'] }, tool: 'WebFetch', input: { url: 'https://x.test' }, readOnly: R, expected: 'deny', kind: 'denyRule' }],
  ['default: ask rule beats allow rule', { mode: 'default', rules: { allow: ['Bash'], ask: ['Bash(git push:*)'] }, tool: 'Bash', input: bash('git push origin main'), expected: 'ask', kind: 'askRule', rule: 'Bash(git push:*)' }],
  ['default: ask rule beats read-only', { mode: 'default', rules: { ask: ['Read(.env)'] }, tool: 'Read', input: file('.env'), readOnly: R, expected: 'ask', kind: 'askRule' }],
  ['default: WebFetch domain rule', { mode: 'default', rules: { allow: ['WebFetch(domain:example.com)'] }, tool: 'WebFetch', input: { url: 'https://docs.example.com/a' }, expected: 'allow', kind: 'allowRule' }],
  ['default: MCP server rule covers its tools', { mode: 'default', rules: { allow: ['mcp__github'] }, tool: 'mcp__github__create_issue', input: {}, expected: 'allow', kind: 'allowRule' }],
  ['default: team tools run without asking', { mode: 'default', tool: 'SendMessage', input: { type: 'message' }, expected: 'allow', kind: 'coordinationTool' }],
  ['default: team allowed path allows an edit', { mode: 'default', tool: 'Edit', input: file('/data/shared/a.txt'), extra: { teamAllowedPaths: teamPaths }, expected: 'allow', kind: 'teamAllowedPath' }],
  ['default: team allowed path covers Write (Edit family)', { mode: 'default', tool: 'Write', input: file('/data/shared/sub/b.txt'), extra: { teamAllowedPaths: teamPaths }, expected: 'allow', kind: 'teamAllowedPath' }],
  ['default: team allowed path is per tool', { mode: 'default', tool: 'Bash', input: bash('rm /data/shared/a.txt'), extra: { teamAllowedPaths: teamPaths }, expected: 'ask', kind: 'noRule' }],
  ['default: team allowed path not fooled by ..', { mode: 'default', tool: 'Edit', input: file('/data/shared/../secret/a'), extra: { teamAllowedPaths: teamPaths }, expected: 'ask', kind: 'outsideWorkingDirectories' }],
  ['default: deny rule beats team allowed path', { mode: 'default', rules: { deny: ['Edit(//data/**)'] }, tool: 'Edit', input: file('/data/shared/a.txt'), extra: { teamAllowedPaths: teamPaths }, expected: 'deny', kind: 'denyRule' }],
  // acceptEdits
  ['acceptEdits: edit inside the repo', { mode: 'acceptEdits', tool: 'Edit', input: file('src/a.ts'), expected: 'allow', kind: 'mode' }],
  ['acceptEdits: write outside the repo asks', { mode: 'acceptEdits', tool: 'Write', input: file('/tmp/x'), expected: 'ask', kind: 'outsideWorkingDirectories' }],
  ['acceptEdits: Bash still asks', { mode: 'acceptEdits', tool: 'Bash', input: bash('make'), expected: 'ask', kind: 'noRule' }],
  ['acceptEdits: .git/config is protected', { mode: 'acceptEdits', tool: 'Edit', input: file('.git/config'), expected: 'ask', kind: 'protectedPath' }],
  ['acceptEdits: a git hook is protected', { mode: 'acceptEdits', tool: 'Write', input: file('sub/.git/hooks/pre-commit'), expected: 'ask', kind: 'protectedPath' }],
  ['acceptEdits: .bashrc in the repo is protected', { mode: 'acceptEdits', tool: 'Write', input: file('.bashrc'), expected: 'ask', kind: 'protectedPath' }],
  ['acceptEdits: .muster/settings.local.json (hook commands) is protected', { mode: 'acceptEdits', tool: 'Write', input: file('.muster/settings.local.json'), expected: 'ask', kind: 'protectedPath' }],
  ['acceptEdits: .muster/settings.json edit is protected', { mode: 'acceptEdits', tool: 'Edit', input: file('/work/repo/.muster/settings.json'), expected: 'ask', kind: 'protectedPath' }],
  ['acceptEdits: a .muster agent definition is protected', { mode: 'acceptEdits', tool: 'Write', input: file('.muster/agents/evil.md'), expected: 'ask', kind: 'protectedPath' }],
  ['acceptEdits: a nested .muster folder is protected', { mode: 'acceptEdits', tool: 'Edit', input: file('/work/lib/sub/.muster/agents/team/x.md'), expected: 'ask', kind: 'protectedPath' }],
  ['acceptEdits: a Bash redirect into .muster still asks', { mode: 'acceptEdits', rules: { allow: ['Bash(echo:*)'] }, tool: 'Bash', input: bash('echo {} > .muster/settings.local.json'), expected: 'ask', kind: 'noRule' }],
  ['acceptEdits: a file named like .muster is not protected', { mode: 'acceptEdits', tool: 'Write', input: file('notes/.muster.md'), expected: 'allow', kind: 'mode' }],
  ['acceptEdits: a repository inside a .muster folder is not protected as a whole', { mode: 'acceptEdits', tool: 'Edit', input: file('/home/ann/.muster/repo/a.ts'), extra: { workingDirectories: ['/home/ann/.muster/repo'] }, expected: 'allow', kind: 'mode' }],
  ['acceptEdits: a repository inside a .claude folder is not protected as a whole', { mode: 'acceptEdits', tool: 'Edit', input: file('/home/ann/.claude/repo/a.ts'), extra: { workingDirectories: ['/home/ann/.claude/repo'] }, expected: 'allow', kind: 'mode' }],
  ['acceptEdits: .gitignore is an ordinary file', { mode: 'acceptEdits', tool: 'Edit', input: file('.gitignore'), expected: 'allow', kind: 'mode' }],
  ['acceptEdits: an Edit(.git/**) rule is the user\'s choice', { mode: 'acceptEdits', rules: { allow: ['Edit(.git/**)'] }, tool: 'Edit', input: file('.git/config'), expected: 'allow', kind: 'allowRule' }],
  ['acceptEdits: deny rule still wins', { mode: 'acceptEdits', rules: { deny: ['Edit(src/secret/**)'] }, tool: 'Edit', input: file('src/secret/k'), expected: 'deny', kind: 'denyRule' }],
  // bypassPermissions
  ['bypass enabled: anything', { mode: 'bypassPermissions', tool: 'Bash', input: bash('rm -rf build'), extra: { bypassPermissionsEnabled: true }, expected: 'allow', kind: 'mode' }],
  ['bypass enabled: deny rule still wins', { mode: 'bypassPermissions', rules: { deny: ['Bash(rm:*)'] }, tool: 'Bash', input: bash('rm -rf build'), extra: { bypassPermissionsEnabled: true }, expected: 'deny', kind: 'denyRule' }],
  ['bypass enabled: ask rule still asks', { mode: 'bypassPermissions', rules: { ask: ['Bash(git push:*)'] }, tool: 'Bash', input: bash('git push'), extra: { bypassPermissionsEnabled: true }, expected: 'ask', kind: 'askRule' }],
  ['bypass not enabled: falls back to default', { mode: 'bypassPermissions', tool: 'Bash', input: bash('rm -rf build'), expected: 'ask', kind: 'noRule' }],
  ['bypass not enabled: reads still allowed', { mode: 'bypassPermissions', tool: 'Read', input: file('a.ts'), readOnly: R, expected: 'allow', kind: 'readOnly' }],
  // plan
  ['plan: read allowed', { mode: 'plan', tool: 'Read', input: file('src/a.ts'), readOnly: R, expected: 'allow', kind: 'readOnly' }],
  ['plan: edit refused', { mode: 'plan', tool: 'Edit', input: file('src/a.ts'), extra: { planFilePath: plan }, expected: 'deny', kind: 'planMode' }],
  ['plan: allow rule does not open edits', { mode: 'plan', rules: { allow: ['Edit'] }, tool: 'Write', input: file('src/a.ts'), extra: { planFilePath: plan }, expected: 'deny', kind: 'planMode' }],
  ['plan: Bash refused', { mode: 'plan', rules: { allow: ['Bash(git:*)'] }, tool: 'Bash', input: bash('git commit -am x'), readOnly: W, expected: 'deny', kind: 'planMode' }],
  ['plan: writing the plan file allowed', { mode: 'plan', tool: 'Write', input: file('~/.claude/plans/brave-otter.md'), extra: { planFilePath: plan }, expected: 'allow', kind: 'planFile' }],
  ['plan: another file next to the plan refused', { mode: 'plan', tool: 'Write', input: file('~/.claude/plans/other.md'), extra: { planFilePath: plan }, expected: 'deny', kind: 'planMode' }],
  ['plan: SendMessage allowed', { mode: 'plan', tool: 'SendMessage', input: {}, expected: 'allow', kind: 'coordinationTool' }],
  ['plan: spawning refused', { mode: 'plan', tool: 'Task', input: {}, expected: 'deny', kind: 'planMode' }],
  ['plan: read-only Bash allowed', { mode: 'plan', tool: 'Bash', input: bash('git log --oneline'), readOnly: R, expected: 'allow', kind: 'readOnly' }],
  ['plan: "read-only" Bash writing a file refused', { mode: 'plan', tool: 'Bash', input: bash('git log > notes.txt'), readOnly: R, expected: 'deny', kind: 'planMode' }],
  ['default: "read-only" Bash with $(…) asks', { mode: 'default', tool: 'Bash', input: bash('cat $(find / -name id_rsa)'), readOnly: R, expected: 'ask', kind: 'noRule' }],
  // delegate
  ['delegate: TaskCreate allowed', { mode: 'delegate', tool: 'TaskCreate', input: {}, expected: 'allow', kind: 'delegateMode' }],
  ['delegate: Task (spawn) allowed', { mode: 'delegate', tool: 'Task', input: {}, expected: 'allow', kind: 'delegateMode' }],
  ['delegate: Read refused', { mode: 'delegate', tool: 'Read', input: file('src/a.ts'), readOnly: R, expected: 'deny', kind: 'delegateMode' }],
  ['delegate: allow rule does not open Bash', { mode: 'delegate', rules: { allow: ['Bash'] }, tool: 'Bash', input: bash('ls'), expected: 'deny', kind: 'delegateMode' }],
  // dontAsk
  ['dontAsk: unapproved Bash denied', { mode: 'dontAsk', tool: 'Bash', input: bash('make'), expected: 'deny', kind: 'dontAsk' }],
  ['dontAsk: ask rule becomes deny', { mode: 'dontAsk', rules: { allow: ['Bash'], ask: ['Bash(git push:*)'] }, tool: 'Bash', input: bash('git push'), expected: 'deny', kind: 'dontAsk', rule: 'Bash(git push:*)' }],
  ['dontAsk: pre-approved call runs', { mode: 'dontAsk', rules: { allow: ['Bash(npm test)'] }, tool: 'Bash', input: bash('npm test'), expected: 'allow', kind: 'allowRule' }],
  ['dontAsk: read inside the repo runs', { mode: 'dontAsk', tool: 'Glob', input: { pattern: '**/*.ts' }, readOnly: R, expected: 'allow', kind: 'readOnly' }],
  ['dontAsk: read outside denied', { mode: 'dontAsk', tool: 'Glob', input: { pattern: '/etc/*.conf' }, readOnly: R, expected: 'deny', kind: 'dontAsk' }],
];

describe('decidePermission decision table', () => {
  it('has at least 40 cases', () => {
    expect(table.length).toBeGreaterThanOrEqual(40);
  });

  it.each(table)('%s', (_name, row) => {
    const decision = decidePermission({
      mode: row.mode,
      rules: row.rules ?? {},
      workingDirectories: [repo, '/work/lib'],
      homeDirectory: home,
      call: { toolName: row.tool, input: row.input, readOnly: row.readOnly ?? false },
      ...row.extra,
    });
    expect({ behavior: decision.behavior, kind: decision.reason.kind }).toEqual({
      behavior: row.expected,
      kind: row.kind,
    });
    if (row.rule !== undefined) expect(decision.reason.rule).toBe(row.rule);
    expect(decision.message).toContain(row.tool);
  });
});

describe('decidePermission details', () => {
  const base = { rules: {}, workingDirectories: [repo], homeDirectory: home };

  it('says when bypassPermissions fell back to default', () => {
    const decision = decidePermission({
      ...base,
      mode: 'bypassPermissions',
      call: { toolName: 'Bash', input: bash('make'), readOnly: false },
    });
    expect(decision.effectiveMode).toBe('default');
    expect(decision.reason.detail).toContain('bypassPermissions is not enabled');
  });

  it('explains why a shell line could not be vouched for', () => {
    const decision = decidePermission({
      ...base,
      rules: { allow: ['Bash(git:*)'] },
      mode: 'default',
      call: { toolName: 'Bash', input: bash('git log $(cat x)'), readOnly: false },
    });
    expect(decision.reason.detail).toContain('command substitution');
  });

  it('throws INVALID_RULE for a malformed rule and INVALID_INPUT without directories', () => {
    const call = { toolName: 'Read', input: file('a'), readOnly: true };
    expect(() =>
      decidePermission({ ...base, mode: 'default', rules: { allow: ['Read('] }, call }),
    ).toThrow(expect.objectContaining({ code: 'INVALID_RULE' }));
    let caught: unknown;
    try {
      decidePermission({ ...base, workingDirectories: [], mode: 'default', call });
    } catch (error) {
      caught = error;
    }
    expect(MusterError.hasCode(caught, 'INVALID_INPUT')).toBe(true);
  });
});
