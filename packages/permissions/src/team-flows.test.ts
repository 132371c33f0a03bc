import { appendFile } from 'node:fs/promises';
import path from 'node:path';
import { MusterError, type PermissionUpdate } from '@muster/protocol';
import { createMessageLedger } from '@muster/provenance';
import { addMember, createTeam, readTeam } from '@muster/teams';
import { makeTempDirectory } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import { auditLogPath, createAuditLog, readAuditLog } from './audit-log.js';
import { createLeadTrust } from './lead-trust.js';
import { createInProcessRouter } from './messenger.js';
import { createPermissionBroker } from './permission-broker.js';
import { createPermissionClient } from './permission-client.js';
import { applyPermissionUpdates, createPermissionContext } from './permission-context.js';

async function teamWithWorker() {
  const base = await makeTempDirectory('muster-permissions-team-');
  const root = path.join(base, 'root');
  const { config } = await createTeam({ root, name: 'flow-team', cwd: base });
  await addMember(root, config.name, {
    name: 'beta',
    agentType: 'general-purpose',
    model: 'test-model',
    prompt: 'work',
    planModeRequired: false,
    cwd: base,
    backendType: 'in-process',
    tmuxPaneId: 'in-process',
  });
  const router = createInProcessRouter();
  const audit = createAuditLog({ root, team: config.name });
  const context = createPermissionContext({ workingDirectories: [base], homeDirectory: base });
  const makeBroker = (name: string) =>
    createPermissionBroker({
      messenger: router.messenger(name),
      teamName: config.name,
      root,
      leadContext: context,
      audit,
    });
  const client = createPermissionClient({
    messenger: router.messenger('beta'),
    teamName: config.name,
    trust: createLeadTrust({ agentName: 'beta', ledger: createMessageLedger(), audit }),
    context,
    audit,
  });
  router.register('beta', client.handleMessage);
  return { root, team: config.name, router, makeBroker, client, base };
}

describe('mode control and lead checks with a real team config', () => {
  it('setWorkerMode updates the member in the config and the worker switches', async () => {
    const { root, team, makeBroker, client } = await teamWithWorker();
    const broker = makeBroker('team-lead');
    await broker.setWorkerMode('beta', 'acceptEdits');
    expect(client.context().mode).toBe('acceptEdits');
    const member = (await readTeam(root, team)).members.find((entry) => entry.name === 'beta');
    expect(member?.mode).toBe('acceptEdits');
    const { entries } = await readAuditLog(root, team);
    // In process the worker applies the mode before the lead's send returns.
    expect(entries.map((entry) => entry.kind).sort()).toEqual(['mode_applied', 'mode_set']);
    expect(entries.find((entry) => entry.kind === 'mode_set')).toMatchObject({
      actor: 'team-lead',
      subject: 'beta',
      outcome: 'acceptEdits',
    });
    await expect(broker.setWorkerMode('nobody', 'default')).rejects.toThrow(
      /nobody is not a member/,
    );
  });

  it('only the lead may answer: a broker run by a teammate is refused', async () => {
    const { router, makeBroker, team } = await teamWithWorker();
    const impostor = makeBroker('beta');
    router.register('beta', impostor.handleMessage);
    await router.messenger('gamma').send('beta', {
      type: 'permission_request',
      request_id: 'perm-1-abcdefg',
      agent_id: 'gamma',
      tool_name: 'Bash',
      tool_use_id: 'toolu_1',
      description: 'Run a command.',
      input: { command: 'make' },
      permission_suggestions: [],
    });
    let caught: unknown;
    try {
      await impostor.approve('perm-1-abcdefg');
    } catch (error) {
      caught = error;
    }
    expect(MusterError.hasCode(caught, 'NOT_LEAD')).toBe(true);
    expect((caught as Error).message).toContain(`only the lead (team-lead) may`);
    expect((caught as Error).message).toContain(team);
    await expect(impostor.setWorkerMode('team-lead', 'plan')).rejects.toThrow(/only the lead/);
  });

  it('a team approval needs a directory it can work out', async () => {
    const { router, makeBroker } = await teamWithWorker();
    const broker = makeBroker('team-lead');
    router.register('team-lead', broker.handleMessage);
    await router.messenger('beta').send('team-lead', {
      type: 'permission_request',
      request_id: 'perm-2-abcdefg',
      agent_id: 'beta',
      tool_name: 'Bash',
      tool_use_id: 'toolu_2',
      description: 'Run a command.',
      input: { command: 'make' },
      permission_suggestions: [],
    });
    await expect(broker.approve('perm-2-abcdefg', { scope: 'team' })).rejects.toThrow(
      /Pass teamPath/,
    );
    // The request is still waiting, so the lead can answer it another way.
    expect(broker.pendingPermissions().map((request) => request.requestId)).toEqual([
      'perm-2-abcdefg',
    ]);
  });
});

describe('audit log and permission updates', () => {
  it('reports lines it cannot read instead of dropping them', async () => {
    const { root, team } = await teamWithWorker();
    const audit = createAuditLog({ root, team });
    await audit.append({
      kind: 'decision',
      actor: 'beta',
      outcome: 'allow',
      data: { text: 'x'.repeat(5000) },
    });
    await appendFile(auditLogPath(root, team), '{"kind":"decis\n');
    const { entries, problems } = await readAuditLog(root, team);
    expect(entries).toHaveLength(1);
    expect(String(entries[0]!.data!.text)).toMatch(/… \(5000 characters\)$/);
    expect(problems).toEqual([expect.objectContaining({ line: 2 })]);
  });

  it('applies rule and directory updates; setMode only without preserveMode', () => {
    const context = createPermissionContext({
      mode: 'plan',
      rules: { allow: ['Bash(git:*)', 'Read'] },
      workingDirectories: ['/repo'],
      homeDirectory: '/home/a',
    });
    const updates: PermissionUpdate[] = [
      {
        type: 'addRules',
        rules: [{ toolName: 'Bash', ruleContent: 'git:*' }, { toolName: 'Edit' }],
        behavior: 'allow',
        destination: 'session',
      },
      {
        type: 'removeRules',
        rules: [{ toolName: 'Read' }],
        behavior: 'allow',
        destination: 'session',
      },
      { type: 'addDirectories', directories: ['/data/../data2'], destination: 'session' },
      { type: 'setMode', mode: 'bypassPermissions', destination: 'session' },
    ];
    const preserved = applyPermissionUpdates(context, updates, { preserveMode: true });
    expect(preserved.context.mode).toBe('plan');
    expect(preserved.skipped).toHaveLength(1);
    expect(preserved.context.rules.allow).toEqual([
      { toolName: 'Bash', ruleContent: 'git:*' },
      { toolName: 'Edit' },
    ]);
    expect(preserved.context.workingDirectories).toEqual(['/repo', '/data2']);
    expect(context.rules.allow).toHaveLength(2);
    expect(applyPermissionUpdates(context, updates, { preserveMode: false }).context.mode).toBe(
      'bypassPermissions',
    );
  });
});
