// `muster teammate` is the process teammate of @muster/agents behind the CLI: run as the real
// built CLI in a child process (it owns its process: signals, exit), checked on its command line.
import { spawnSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, builtCli } from '../test-support/reference.js';

beforeAll(assertBuilt);

const muster = (...args: string[]) =>
  spawnSync(process.execPath, [builtCli, ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    timeout: 30_000,
  });

describe('muster teammate', () => {
  it('refuses an unknown flag with one line naming it and exit code 2', () => {
    const result = muster('teammate', '--agent-id', 'alpha@crew', '--frobnicate');
    expect(result.status).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([
      'muster teammate: unknown flag "--frobnicate" (muster teammate --help lists the flags).',
    ]);
  });

  it('prints the teammate’s flags with --help', () => {
    const result = muster('teammate', '--help');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('--lead-verify-key <key>');
    expect(result.stdout).toContain('--parent-session-id <id>');
  });

  it('takes the root from muster’s --root and says when the team is not there (exit 1)', () => {
    const result = muster(
      '--root',
      '/nonexistent-muster-root',
      'teammate',
      '--agent-id',
      'alpha@crew',
      '--agent-name',
      'alpha',
      '--team-name',
      'crew',
      '--agent-color',
      'blue',
      '--parent-session-id',
      'a68f0c01-7469-46a4-a245-0aa0886e83a5',
      '--lead-verify-key',
      'key',
    );
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('cannot read team "crew" under /nonexistent-muster-root');
  });
});
