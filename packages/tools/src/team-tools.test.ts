import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createLeadKeyring } from '@muster/permissions';
import { QueryError } from '@muster/query';
import { readTeam, removeMember } from '@muster/teams';
import { makeTempDirectory } from '@muster/test-utils';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { createTeamSession } from './team-session.js';
import {
  addTeammate,
  runTool,
  textOf,
  toolContext,
  toolFailure,
} from './team-tools-test-support.js';
import { createTeamTools } from './team-tools.js';

async function leadTools() {
  const root = await makeTempDirectory('muster-team-tools-');
  const session = createTeamSession({ role: 'lead' });
  const tools = createTeamTools({
    root,
    session,
    mailboxOptions: createLeadKeyring().mailboxOptions(),
  });
  return { root, session, tools, context: toolContext(root) };
}

describe('TeamCreate', () => {
  it('creates a v2 team, enters it, and answers {team_name, team_file_path, lead_agent_id} pretty-printed', async () => {
    const { root, session, tools, context } = await leadTools();
    const result = await runTool(
      tools.teamCreate,
      { team_name: 'Parser Work', description: 'Fix the parser' },
      context,
    );
    const teamFile = path.join(root, 'teams', 'parser-work', 'config.json');
    const expected = {
      team_name: 'parser-work',
      team_file_path: teamFile,
      lead_agent_id: 'team-lead@parser-work',
    };
    expect(textOf(result)).toBe(JSON.stringify(expected, null, 2));
    expect(result.isError).toBeUndefined();
    expect(session.teamName()).toBe('parser-work');
    const config = JSON.parse(readFileSync(teamFile, 'utf8')) as Record<string, unknown>;
    expect(config.protocolVersion).toBe(2);
    expect(config.description).toBe('Fix the parser');
    expect(existsSync(path.join(root, 'tasks', 'parser-work'))).toBe(true);
  });

  it('refuses a second team while the lead is in one, and a teammate entirely', async () => {
    const { root, tools, context } = await leadTools();
    await runTool(tools.teamCreate, { team_name: 'one' }, context);
    const second = await toolFailure(tools.teamCreate, { team_name: 'two' }, context);
    expect(second.code).toBe('ALREADY_IN_TEAM');
    expect(second.message).toContain('"one"');
    expect(second.message).toContain('TeamDelete');
    expect(existsSync(path.join(root, 'teams', 'two'))).toBe(false);

    const teammate = createTeamTools({
      root,
      session: createTeamSession({ role: 'teammate', agentName: 'alice', teamName: 'one' }),
    });
    const refused = await toolFailure(teammate.teamCreate, { team_name: 'three' }, context);
    expect(refused.code).toBe('NOT_LEAD');
    expect(existsSync(path.join(root, 'teams', 'three'))).toBe(false);
  });

  it('keeps a hostile name inside the root: sanitized, entered, and deletable', async () => {
    const { root, session, tools, context } = await leadTools();
    const result = await runTool(tools.teamCreate, { team_name: '../../outside' }, context);
    const { team_name: teamName } = JSON.parse(textOf(result)) as { team_name: string };
    expect(teamName).not.toContain('/');
    expect(existsSync(path.join(root, 'teams', teamName, 'config.json'))).toBe(true);
    expect(existsSync(path.join(root, '..', 'outside'))).toBe(false);
    expect(session.teamName()).toBe(teamName);
    await runTool(tools.teamDelete, {}, context);
    expect(existsSync(path.join(root, 'teams', teamName))).toBe(false);
    const empty = await toolFailure(tools.teamCreate, { team_name: '...' }, context);
    expect(empty.code).toBe('INVALID_NAME');
    expect(session.teamName()).toBeUndefined();
  });

  it('takes a suffixed name when the name is taken and reports it', async () => {
    const { tools, context } = await leadTools();
    // A second lead under the same root asks for the same name.
    const rootTools = createTeamTools({
      root: context.cwd,
      session: createTeamSession({ role: 'lead' }),
      mailboxOptions: createLeadKeyring().mailboxOptions(),
    });
    await runTool(tools.teamCreate, { team_name: 'dup' }, context);
    const result = await runTool(rootTools.teamCreate, { team_name: 'dup' }, context);
    expect(JSON.parse(textOf(result)).team_name).toBe('dup-2');
  });
});

describe('TeamSession', () => {
  it('tells listeners when the lead enters and leaves a team; a throwing listener changes nothing', async () => {
    const { root, session, tools, context } = await leadTools();
    const changes: unknown[] = [];
    session.onChange((change) => changes.push(change));
    const unsubscribe = session.onChange(() => {
      throw new Error('listener bug');
    });
    const warnings = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    onTestFinished(() => warnings.mockRestore());
    await runTool(tools.teamCreate, { team_name: 'crew' }, context);
    unsubscribe();
    await runTool(tools.teamDelete, {}, context);
    expect(changes).toEqual([
      { kind: 'enter', teamName: 'crew' },
      { kind: 'leave', teamName: 'crew' },
    ]);
    expect(warnings).toHaveBeenCalledTimes(1);
    expect(String(warnings.mock.calls[0]![0])).toContain('listener bug');
    expect(existsSync(path.join(root, 'teams', 'crew'))).toBe(false);
  });
});

describe('createTeamTools options', () => {
  it('refuses a v2 lead without a signing mailbox, and says what to pass', async () => {
    const root = await makeTempDirectory('muster-team-tools-');
    const build = () => createTeamTools({ root, session: createTeamSession({ role: 'lead' }) });
    expect(build).toThrow(QueryError);
    expect(build).toThrow(/mailboxOptions: keyring\.mailboxOptions\(\)/);
    // A v1 team (Claude Code 2.1.45) signs nothing; a teammate needs no signer.
    expect(() =>
      createTeamTools({ root, session: createTeamSession({ role: 'lead' }), dialect: 'v1' }),
    ).not.toThrow();
    expect(() =>
      createTeamTools({
        root,
        session: createTeamSession({ role: 'teammate', agentName: 'alice', teamName: 'x' }),
      }),
    ).not.toThrow();
  });

  it('refuses an agentName that is not the session agent', async () => {
    const root = await makeTempDirectory('muster-team-tools-');
    const session = createTeamSession({ role: 'teammate', agentName: 'alice', teamName: 'x' });
    expect(() => createTeamTools({ root, session, agentName: 'bob' })).toThrow(/differs/);
    expect(() => createTeamTools({ root, session, agentName: 'alice' })).not.toThrow();
  });

  it('checks the session options', () => {
    expect(() => createTeamSession({ role: 'lead', agentName: 'boss' })).toThrow(/team-lead/);
    expect(() =>
      createTeamSession({ role: 'teammate', agentName: '../x', teamName: 'team' }),
    ).toThrow(/not a valid name/);
  });
});

describe('TeamDelete', () => {
  it('refuses while a teammate remains (success false, names listed), then deletes and leaves the team', async () => {
    const { root, session, tools, context } = await leadTools();
    await runTool(tools.teamCreate, { team_name: 'crew' }, context);
    await addTeammate(root, 'crew', 'alice', root);

    const refused = await runTool(tools.teamDelete, {}, context);
    expect(refused.isError).toBe(true);
    const body = JSON.parse(textOf(refused)) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(['success', 'message', 'team_name']);
    expect(body.success).toBe(false);
    expect(body.team_name).toBe('crew');
    expect(String(body.message)).toContain('alice');
    expect(String(body.message)).toContain('shutdown_request');
    expect((await readTeam(root, 'crew')).members.map((member) => member.name)).toContain('alice');
    expect(session.teamName()).toBe('crew');

    await removeMember(root, 'crew', 'alice');
    const deleted = await runTool(tools.teamDelete, {}, context);
    expect(deleted.isError).toBeUndefined();
    const done = JSON.parse(textOf(deleted)) as Record<string, unknown>;
    expect(Object.keys(done)).toEqual(['success', 'message', 'team_name']);
    expect(done.success).toBe(true);
    expect(done.team_name).toBe('crew');
    expect(existsSync(path.join(root, 'teams', 'crew'))).toBe(false);
    expect(existsSync(path.join(root, 'tasks', 'crew'))).toBe(false);
    expect(session.teamName()).toBeUndefined();

    const nothing = await toolFailure(tools.teamDelete, {}, context);
    expect(nothing.code).toBe('NOT_IN_TEAM');
    // And a new team can be created afterwards.
    await runTool(tools.teamCreate, { team_name: 'crew' }, context);
    expect(session.teamName()).toBe('crew');
  });

  it('with isMemberAlive, removes teammates whose processes are gone', async () => {
    const root = await makeTempDirectory('muster-team-tools-');
    const session = createTeamSession({ role: 'lead' });
    const tools = createTeamTools({
      root,
      session,
      mailboxOptions: createLeadKeyring().mailboxOptions(),
      isMemberAlive: (member) => member.name !== 'ghost',
    });
    const context = toolContext(root);
    await runTool(tools.teamCreate, { team_name: 'haunted' }, context);
    await addTeammate(root, 'haunted', 'ghost', root);
    const result = await runTool(tools.teamDelete, {}, context);
    expect(JSON.parse(textOf(result)).success).toBe(true);
    expect(existsSync(path.join(root, 'teams', 'haunted'))).toBe(false);
  });

  it('refuses a teammate', async () => {
    const { root, tools, context } = await leadTools();
    await runTool(tools.teamCreate, { team_name: 'crew' }, context);
    const teammate = createTeamTools({
      root,
      session: createTeamSession({ role: 'teammate', agentName: 'alice', teamName: 'crew' }),
    });
    expect((await toolFailure(teammate.teamDelete, {}, context)).code).toBe('NOT_LEAD');
    expect(existsSync(path.join(root, 'teams', 'crew'))).toBe(true);
  });
});
