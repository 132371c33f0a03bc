import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMailbox } from '@muster/mailbox';
import { createRootLayout } from '@muster/protocol';
import { addMember, createTeam, readTeam } from '@muster/teams';
import { makeTempDirectory, startNodeProcess } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import { readAuditLog } from './audit-log.js';
import type { PermissionMailbox } from './mailbox-transport.js';
import { entryShape, readReference2_1_330 } from './test-support.js';

// Real processes (plain .mjs importing the built dist) talking through real inboxes.
const fixtures = fileURLToPath(new URL('./test-fixtures/', import.meta.url));
const workerScript = path.join(fixtures, 'worker.mjs');
const leadScript = path.join(fixtures, 'lead.mjs');

type Line = Record<string, unknown>;

async function makeTeam(workers: Array<{ name: string; mode?: 'plan' }>) {
  const base = await makeTempDirectory('muster-permissions-');
  const root = path.join(base, 'root');
  const repo = path.join(base, 'repo');
  const home = path.join(base, 'home');
  const outside = path.join(base, 'outside');
  await Promise.all(
    [repo, home, outside].map((directory) => mkdir(directory, { recursive: true })),
  );
  const { config } = await createTeam({ root, name: 'perm-team', cwd: repo });
  for (const worker of workers) {
    await addMember(root, config.name, {
      name: worker.name,
      agentType: 'general-purpose',
      model: 'test-model',
      prompt: 'work',
      planModeRequired: worker.mode === 'plan',
      cwd: repo,
      backendType: 'pty',
      tmuxPaneId: '',
      ...(worker.mode === undefined ? {} : { mode: worker.mode }),
    });
  }
  return { root, team: config.name, repo, home, outside };
}

function start(script: string, settings: unknown, launchArguments: string[] = []) {
  const started = startNodeProcess(script, [JSON.stringify(settings), ...launchArguments]);
  return {
    ...started,
    async lines(): Promise<Line[]> {
      const result = await started.exited;
      if (result.code !== 0) {
        throw new Error(`${path.basename(script)} exited with ${result.code}: ${result.stderr}`);
      }
      return result.stdout
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Line);
    },
  };
}

/** Starts a worker once its lead is ready, with the lead verify key the lead made for it. */
async function startWorker(
  lead: ReturnType<typeof start>,
  settings: { name: string } & Record<string, unknown>,
) {
  const ready = JSON.parse(await lead.waitForLine((line) => line.includes('"ready"'))) as {
    launch: Record<string, string[]>;
  };
  const launchArguments = ready.launch[settings.name];
  if (launchArguments === undefined) throw new Error(`the lead made no key for ${settings.name}`);
  return start(workerScript, settings, launchArguments);
}

const write = (file: string, content: string) => ({
  toolName: 'Write',
  input: { file_path: file, content },
  readOnly: false,
});

describe('permission escalation between real processes', () => {
  it('a worker asks, the lead approves (the call runs) or denies (with its message), in the reference format', async () => {
    const { root, team, repo, home, outside } = await makeTeam([{ name: 'gamma' }]);
    const approvedFile = path.join(outside, 'approved.txt');
    const deniedFile = path.join(outside, 'denied.txt');
    const lead = start(leadScript, {
      root,
      team,
      cwd: repo,
      home,
      expectPermissions: 1,
      answers: [
        {
          match: { path: 'approved' },
          action: 'approve',
          options: {
            permissionUpdates: [
              { type: 'setMode', mode: 'bypassPermissions', destination: 'session' },
              {
                type: 'addRules',
                rules: [{ toolName: 'Write', ruleContent: `/${outside}/**` }],
                behavior: 'allow',
                destination: 'session',
              },
            ],
          },
        },
      ],
    });
    const worker = await startWorker(lead, {
      root,
      team,
      name: 'gamma',
      cwd: repo,
      home,
      steps: [{ do: 'authorize', id: 'approved', call: write(approvedFile, 'written by gamma\n') }],
    });
    const [leadLines, workerLines] = await Promise.all([lead.lines(), worker.lines()]);
    expect(workerLines.find((line) => line.id === 'approved')).toMatchObject({
      behavior: 'allow',
      asked: true,
    });
    expect(readFileSync(approvedFile, 'utf8')).toBe('written by gamma\n');
    expect(leadLines.find((line) => line.answered)).toMatchObject({
      worker: 'gamma',
      color: 'blue',
      via: 'mailbox',
    });
    // Preserve mode: the approval added the rule to the lead, but the lead's mode stayed.
    expect(leadLines.at(-1)).toMatchObject({
      done: true,
      leadMode: 'default',
      leadAllowRules: [{ toolName: 'Write', ruleContent: `/${outside}/**` }],
    });

    const denyingLead = start(leadScript, {
      root,
      team,
      cwd: repo,
      home,
      expectPermissions: 1,
      answers: [{ action: 'deny', message: 'Denied by the lead: not that file.' }],
    });
    const secondWorker = await startWorker(denyingLead, {
      root,
      team,
      name: 'gamma',
      cwd: repo,
      home,
      steps: [{ do: 'authorize', id: 'denied', call: write(deniedFile, 'no\n') }],
    });
    const [, secondLines] = await Promise.all([denyingLead.lines(), secondWorker.lines()]);
    expect(secondLines.find((line) => line.id === 'denied')).toMatchObject({
      behavior: 'deny',
      message: 'Denied by the lead: not that file.',
      asked: true,
    });
    expect(existsSync(deniedFile)).toBe(false);

    // The entries on disk have exactly the reference shape (keys and their order).
    const mailbox = createMailbox({ root, team });
    // The real mailbox fits the interface the worker and lead code against (a type check).
    const fits: PermissionMailbox = mailbox;
    expect(typeof fits.sendProtocolMessage).toBe('function');
    const leadInbox = await mailbox.readAll('team-lead');
    const gammaInbox = await mailbox.readAll('gamma');
    expect(leadInbox).toHaveLength(2);
    for (const entry of leadInbox) {
      expect(entryShape(entry)).toEqual(
        entryShape(readReference2_1_330('permission_request').envelope),
      );
      expect(JSON.parse(entry.text).request_id).toMatch(/^perm-\d+-[0-9a-z]{7}$/);
    }
    // The approval carried rules, which the recorded one (without any) leaves out.
    const withoutRules = (shape: { envelope: string[]; payload: string[] }) => ({
      ...shape,
      payload: shape.payload.filter((key) => !key.startsWith('response.permission_updates')),
    });
    expect(withoutRules(entryShape(gammaInbox[0]!))).toEqual(
      entryShape(readReference2_1_330('permission_response_success_lead_signed').envelope),
    );
    expect(entryShape(gammaInbox[1]!)).toEqual(
      entryShape(readReference2_1_330('permission_response_error_lead_signed').envelope),
    );
    expect(JSON.parse(gammaInbox[1]!.text).error).toBe('Denied by the lead: not that file.');

    // The audit log says who approved what for whom.
    const { entries, problems } = await readAuditLog(root, team);
    expect(problems).toEqual([]);
    expect(entries.filter((entry) => entry.kind === 'permission_approved')).toEqual([
      expect.objectContaining({ actor: 'team-lead', subject: 'gamma', toolName: 'Write' }),
    ]);
    expect(entries.filter((entry) => entry.kind === 'permission_denied')).toEqual([
      expect.objectContaining({
        actor: 'team-lead',
        subject: 'gamma',
        detail: 'Denied by the lead: not that file.',
      }),
    ]);
    expect(
      entries.some(
        (entry) => entry.kind === 'rules_persisted' && entry.outcome === 'lead mode kept default',
      ),
    ).toBe(true);
  });

  it('answers three concurrent requests from two workers out of order, each to its caller', async () => {
    const { root, team, repo, home, outside } = await makeTeam([
      { name: 'alpha' },
      { name: 'beta' },
    ]);
    const file = (name: string) => path.join(outside, `${name}.txt`);
    const lead = start(leadScript, {
      root,
      team,
      cwd: repo,
      home,
      expectPermissions: 3,
      order: 'reverse',
      answers: [
        { match: { path: 'alpha-1' }, action: 'approve' },
        { match: { path: 'alpha-2' }, action: 'deny', message: 'no to alpha-2' },
        { match: { path: 'beta-1' }, action: 'approve' },
      ],
    });
    const alpha = await startWorker(lead, {
      root,
      team,
      name: 'alpha',
      cwd: repo,
      home,
      steps: [
        {
          do: 'authorizeConcurrently',
          id: 'alpha',
          calls: [write(file('alpha-1'), 'original'), write(file('alpha-2'), 'original')],
        },
      ],
    });
    const beta = await startWorker(lead, {
      root,
      team,
      name: 'beta',
      cwd: repo,
      home,
      steps: [{ do: 'authorize', id: 'beta-0', call: write(file('beta-1'), 'original') }],
    });
    const [leadLines, alphaLines, betaLines] = await Promise.all([
      lead.lines(),
      alpha.lines(),
      beta.lines(),
    ]);
    const answered = leadLines.filter((line) => line.answered);
    expect(answered).toHaveLength(3);
    // Answered in reverse arrival order: the last request in the lead's inbox went first.
    const arrived = (await createMailbox({ root, team }).readAll('team-lead')).map(
      (entry) => JSON.parse(entry.text).input.file_path as string,
    );
    expect(arrived).toHaveLength(3);
    expect(answered.map((line) => line.path)).toEqual([...arrived].reverse());
    expect(alphaLines.find((line) => line.id === 'alpha-0')).toMatchObject({
      behavior: 'allow',
      input: { content: 'original' },
    });
    expect(alphaLines.find((line) => line.id === 'alpha-1')).toMatchObject({
      behavior: 'deny',
      message: 'no to alpha-2',
    });
    expect(betaLines.find((line) => line.id === 'beta-0')).toMatchObject({
      behavior: 'allow',
      input: { content: 'original' },
    });
    expect(await readFile(file('alpha-1'), 'utf8')).toBe('original');
    expect(await readFile(file('beta-1'), 'utf8')).toBe('original');
    expect(existsSync(file('alpha-2'))).toBe(false);
  });

  it('keeps a plan-mode worker from writing until its plan is approved; a rejection returns the feedback', async () => {
    const { root, team, repo, home } = await makeTeam([{ name: 'beta', mode: 'plan' }]);
    const target = path.join(repo, 'src', 'greet.ts');
    const planFilePath = path.join(home, '.claude', 'plans', 'beta.md');
    const lead = start(leadScript, {
      root,
      team,
      cwd: repo,
      home,
      planAnswers: [
        { action: 'reject', feedback: 'Please also cover the empty-name case.' },
        { action: 'approve', mode: 'acceptEdits', tryFirst: ['plan', 'delegate'] },
      ],
    });
    const plan = (planContent: string) => ({ planFilePath, planContent });
    const worker = await startWorker(lead, {
      root,
      team,
      name: 'beta',
      cwd: repo,
      home,
      mode: 'plan',
      steps: [
        { do: 'authorize', id: 'before', call: write(target, 'too early') },
        { do: 'submitPlan', id: 'first-plan', plan: plan('# Plan\n1. greet\n') },
        { do: 'authorize', id: 'after-rejection', call: write(target, 'still too early') },
        { do: 'authorize', id: 'plan-file', call: write(planFilePath, '# Plan v2\n') },
        { do: 'submitPlan', id: 'second-plan', plan: plan('# Plan v2\n') },
        { do: 'authorize', id: 'after-approval', call: write(target, 'export {}\n') },
      ],
    });
    const [leadLines, workerLines] = await Promise.all([lead.lines(), worker.lines()]);
    const byId = (id: string) => workerLines.find((line) => line.id === id);
    expect(byId('before')).toMatchObject({ behavior: 'deny', kind: 'planMode', asked: false });
    expect(byId('first-plan')).toMatchObject({
      approved: false,
      feedback: 'Please also cover the empty-name case.',
      mode: 'plan',
    });
    expect(byId('after-rejection')).toMatchObject({ behavior: 'deny', kind: 'planMode' });
    expect(byId('plan-file')).toMatchObject({ behavior: 'allow', kind: 'planFile' });
    expect(byId('second-plan')).toMatchObject({ approved: true, permissionMode: 'acceptEdits' });
    expect(byId('after-approval')).toMatchObject({ behavior: 'allow', kind: 'mode', asked: false });
    expect(await readFile(target, 'utf8')).toBe('export {}\n');
    expect(leadLines.filter((line) => line.refused).map((line) => line.code)).toEqual([
      'INVALID_MODE',
      'INVALID_MODE',
    ]);
    // The member's mode in the team config followed the approval.
    const config = await readTeam(root, team);
    expect(config.members.find((member) => member.name === 'beta')?.mode).toBe('acceptEdits');
    // The request and the answers have the reference shape.
    const mailbox = createMailbox({ root, team });
    const [request] = await mailbox.readAll('team-lead');
    expect(entryShape(request!)).toEqual(
      entryShape(readReference2_1_330('plan_approval_request').envelope),
    );
    expect(JSON.parse(request!.text).requestId).toMatch(/^plan_approval-\d+@beta@perm-team$/);
    const answers = await mailbox.readAll('beta');
    expect(entryShape(answers[0]!)).toEqual(
      entryShape(readReference2_1_330('plan_approval_response_rejected_lead_signed').envelope),
    );
    expect(entryShape(answers[1]!)).toEqual(
      entryShape(readReference2_1_330('plan_approval_response_approved_lead_signed').envelope),
    );
  });

  it('a directory approved for the team once is allowed for every member without a second request', async () => {
    const { root, team, repo, home, outside } = await makeTeam([
      { name: 'alpha' },
      { name: 'beta' },
      { name: 'gamma' },
    ]);
    const shared = path.join(outside, 'shared');
    const lead = start(leadScript, {
      root,
      team,
      cwd: repo,
      home,
      expectPermissions: 1,
      answers: [{ action: 'approve', options: { scope: 'team' } }],
    });
    const alpha = await startWorker(lead, {
      root,
      team,
      name: 'alpha',
      cwd: repo,
      home,
      steps: [{ do: 'authorize', id: 'first', call: write(path.join(shared, 'a.txt'), 'a') }],
    });
    // beta is already running: it learns the grant from the team_permission_update.
    const beta = await startWorker(lead, {
      root,
      team,
      name: 'beta',
      cwd: repo,
      home,
      steps: [
        { do: 'waitForTeamPath', id: 'learned', path: shared },
        { do: 'authorize', id: 'second', call: write(path.join(shared, 'b.txt'), 'b') },
      ],
    });
    const [leadLines, alphaLines, betaLines] = await Promise.all([
      lead.lines(),
      alpha.lines(),
      beta.lines(),
    ]);
    expect(alphaLines.find((line) => line.id === 'first')).toMatchObject({
      behavior: 'allow',
      asked: true,
    });
    expect(leadLines.find((line) => line.teamAllowedPath)).toMatchObject({
      teamAllowedPath: { path: shared, toolName: 'Write', addedBy: 'team-lead' },
    });
    expect(betaLines.find((line) => line.id === 'second')).toMatchObject({
      behavior: 'allow',
      kind: 'teamAllowedPath',
      asked: false,
    });
    // gamma starts afterwards: it inherits the grant from the team config.
    const gamma = await startWorker(lead, {
      root,
      team,
      name: 'gamma',
      cwd: repo,
      home,
      steps: [
        { do: 'authorize', id: 'third', call: write(path.join(shared, 'sub', 'c.txt'), 'c') },
      ],
    });
    expect((await gamma.lines()).find((line) => line.id === 'third')).toMatchObject({
      behavior: 'allow',
      kind: 'teamAllowedPath',
      asked: false,
    });
    const config = await readTeam(root, team);
    expect(config.teamAllowedPaths).toEqual([
      expect.objectContaining({ path: shared, toolName: 'Write', addedBy: 'team-lead' }),
    ]);
    const mailbox = createMailbox({ root, team });
    expect(await mailbox.readAll('team-lead')).toHaveLength(1);
    expect(existsSync(createRootLayout(root).sidecarPath(team, 'permission-audit.jsonl'))).toBe(
      true,
    );
  });
});
