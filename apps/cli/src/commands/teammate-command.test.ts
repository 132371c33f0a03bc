// `muster teammate` is the process teammate of @muster/agents behind the CLI: run as the real
// built CLI in a child process (it owns its process: signals, exit), on its command line and as
// a lead starts it, on a real PTY with @muster/scripted-model (a TEST DOUBLE of the Messages
// API) over HTTP.
import { spawnSync } from 'node:child_process';
import { BUILT_IN_AGENTS, spawnTeammate } from '@muster/agents';
import { createPtyBackend, type PtyMemberHandle } from '@muster/backends';
import { createMailbox } from '@muster/mailbox';
import { createLeadKeyring } from '@muster/permissions';
import { startScriptedModel } from '@muster/scripted-model';
import { createTeam } from '@muster/teams';
import { makeTempDirectory } from '@muster/test-utils';
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

  it('runs a teammate a lead started with it on a PTY, until the lead’s signed shutdown (exit 0)', async () => {
    const root = await makeTempDirectory('muster-cli-teammate-');
    const cwd = await makeTempDirectory('muster-cli-teammate-cwd-');
    const { teamName } = await createTeam({ root, name: 'crew', cwd });
    const keyring = createLeadKeyring();
    const lead = createMailbox({ root, team: teamName, ...keyring.mailboxOptions() });
    const model = await startScriptedModel({
      script: (request) => {
        // Only the newest message counts: after the approval comes its tool result.
        const messages = (request.body as { messages: unknown[] }).messages;
        const newest = JSON.stringify(messages[messages.length - 1]);
        const requestId = /\\"request_id\\":\\"([^\\"]+)\\"/.exec(newest)?.[1];
        return requestId === undefined
          ? { content: [{ type: 'text', text: 'Ready for work.' }] }
          : {
              content: [
                {
                  type: 'tool_use',
                  name: 'SendMessage',
                  input: { type: 'shutdown_response', request_id: requestId, approve: true },
                },
              ],
            };
      },
    });
    const backend = createPtyBackend();
    try {
      const spawned = await spawnTeammate({
        root,
        teamName,
        name: 'alpha',
        prompt: 'Say you are ready.',
        definition: BUILT_IN_AGENTS[0]!,
        model: 'claude-test-model',
        cwd,
        mailbox: lead,
        backend: { requested: 'pty', backends: [backend], environment: process.env },
        command: { file: process.execPath, args: [builtCli, 'teammate'] },
        keyring,
        modelEnvironment: { ANTHROPIC_API_KEY: 'sk-test-cli', ANTHROPIC_BASE_URL: model.url },
        readyTimeoutMs: 30_000,
      });
      await spawned.handle.ready;
      await lead.sendProtocolMessage('alpha', 'team-lead', {
        type: 'shutdown_request',
        requestId: 'shutdown-1000@alpha',
        from: 'team-lead',
        reason: 'Done.',
        timestamp: new Date().toISOString(),
      });
      expect(await spawned.handle.exited).toMatchObject({ reason: 'exited', code: 0 });
      const screen = (await (spawned.handle as PtyMemberHandle).screen()).lines.join('\n');
      expect(screen).toContain('Ready for work.');
      expect(screen).toContain('approved shutdown request shutdown-1000@alpha');
    } finally {
      await backend.close();
      await model.close();
    }
  });
});
