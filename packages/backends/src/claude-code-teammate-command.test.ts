// The argv that starts a real Claude Code CLI as a teammate: Claude Code's own flag names, in
// the order its lead passes them to a pane teammate, and refusals for what it would not accept.
import { describe, expect, it } from 'vitest';
import { claudeCodeTeammateCommand } from './claude-code-teammate.js';

const base = {
  agentName: 'alice',
  teamName: 'pane-team',
  color: 'blue',
  parentSessionId: '0b7f6a4e-1c2d-4e5f-8a9b-0c1d2e3f4a5b',
};

describe('claudeCodeTeammateCommand', () => {
  it('runs a JavaScript bundle with node and puts the team identity on the command line', () => {
    const command = claudeCodeTeammateCommand({
      ...base,
      cli: '/opt/claude-code/cli.js',
      node: '/usr/bin/node',
      planModeRequired: true,
      agentType: 'general-purpose',
      permissionMode: 'default',
      model: 'claude-opus-4-6',
    });
    expect(command).toEqual({
      file: '/usr/bin/node',
      args: [
        '/opt/claude-code/cli.js',
        '--agent-id',
        'alice@pane-team',
        '--agent-name',
        'alice',
        '--team-name',
        'pane-team',
        '--agent-color',
        'blue',
        '--parent-session-id',
        base.parentSessionId,
        '--plan-mode-required',
        '--agent-type',
        'general-purpose',
        '--permission-mode',
        'default',
        '--model',
        'claude-opus-4-6',
      ],
    });
  });

  it('runs a native executable itself, with the lead verify key of 2.1.330', () => {
    const key = '1795479482352.MCowBQYDK2VwAyEALlcsp50y-Vat8k5QT9tag3rRLcGbCq2socJ5P8wesGk';
    const command = claudeCodeTeammateCommand({ ...base, cli: '/opt/claude', leadVerifyKey: key });
    expect(command.file).toBe('/opt/claude');
    expect(command.args.slice(-2)).toEqual(['--lead-verify-key', key]);
    expect(command.args).not.toContain('--plan-mode-required');
  });

  it('refuses what Claude Code would refuse or rewrite, saying which input', () => {
    const cli = '/opt/claude-code/cli.js';
    expect(() => claudeCodeTeammateCommand({ ...base, cli, agentName: 'al ice' })).toThrow(
      /agentName "al ice" is not a plain name/,
    );
    expect(() => claudeCodeTeammateCommand({ ...base, cli, teamName: 'a@b' })).toThrow(
      /teamName "a@b" is not a plain name/,
    );
    expect(() => claudeCodeTeammateCommand({ ...base, cli, parentSessionId: 'lead' })).toThrow(
      /parentSessionId "lead" is not a UUID/,
    );
    expect(() => claudeCodeTeammateCommand({ ...base, cli, color: 'Blue!' })).toThrow(
      /color "Blue!" is not a color name/,
    );
    expect(() => claudeCodeTeammateCommand({ ...base, cli, model: '--yolo' })).toThrow(
      /--model needs a non-empty value/,
    );
    expect(() => claudeCodeTeammateCommand({ ...base, cli: '' })).toThrow(/cli is empty/);
  });
});
