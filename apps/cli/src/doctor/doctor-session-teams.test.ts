import { mkdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import {
  copyReferenceState,
  REFERENCE_STATES_2_1_330,
  referenceEntry2_1_330,
} from '../test-support/reference.js';
import { editConfig, makeSessionLive, sessionTeamOf } from '../test-support/session-teams.js';
import { createJsonSchemaValidator } from './json-schema-validator.js';
import { runDoctor } from './run-doctor.js';

const validator = createJsonSchemaValidator();

async function doctor(root: string) {
  const report = await runDoctor({ root, validator });
  return report.findings.map((finding) => ({
    ...finding,
    file: path.relative(root, finding.file),
  }));
}

/** Findings that make the doctor unclean: problems and warnings (notes are not faults). */
const faults = (findings: Awaited<ReturnType<typeof doctor>>) =>
  findings.filter((finding) => finding.severity !== 'note');

async function writeInbox(root: string, team: string, agent: string, entries: unknown[]) {
  await writeFile(
    path.join(root, 'teams', team, 'inboxes', `${agent}.json`),
    JSON.stringify(entries, null, 2),
  );
}

describe('muster doctor on Claude Code 2.1.330 session teams', () => {
  for (const state of REFERENCE_STATES_2_1_330) {
    it(`is clean on ${state} while its session runs`, async () => {
      const root = await copyReferenceState(state);
      await makeSessionLive(root);
      expect(faults(await doctor(root))).toEqual([]);
    });
  }

  it('is clean on the normal in-between states: a pane member starting, the removed members’ [] inboxes, a kept task list', async () => {
    const root = await copyReferenceState('tmux-08-permission-answered');
    const team = await makeSessionLive(root);
    await editConfig(root, team, (config) => {
      const members = config.members as Record<string, unknown>[];
      // A pane teammate is first written with an empty pane id and no backendType.
      const { backendType: _dropped, isActive: _alsoDropped, ...gamma } = members[1]!;
      members[1] = { ...gamma, tmuxPaneId: '' };
    });
    await writeInbox(root, team, 'beta', []);
    expect(faults(await doctor(root))).toEqual([]);

    // /exit removes the team folder and keeps the task list: shown, never "delete it".
    await rm(path.join(root, 'teams', team), { recursive: true });
    const ended = await doctor(root);
    expect(ended).toEqual([
      expect.objectContaining({ severity: 'note', code: 'KEPT_TASK_LIST', file: `tasks/${team}` }),
    ]);
    expect(ended[0]!.message).toContain('has ended');
    expect(ended[0]!.message).not.toMatch(/delete/i);
  });

  it('names what is wrong in broken 2.1.330 states', async () => {
    const root = await copyReferenceState('tmux-08-permission-answered');
    const team = await sessionTeamOf(root);
    // As recorded, the lead process is long gone but the team folder is still there.
    const ended = (await doctor(root)).find((finding) => finding.code === 'SESSION_ENDED');
    expect(ended).toMatchObject({ severity: 'warning', file: `teams/${team}` });
    expect(ended!.message).toContain('session ended; team folder left behind');
    expect(ended!.message).toContain(`tasks/${team} is kept`);

    await makeSessionLive(root);
    const signed = await referenceEntry2_1_330('task_assignment_lead_signed');
    const plain = await referenceEntry2_1_330('plain_message_with_summary_peer');
    await writeInbox(root, team, 'alpha', [
      { ...plain, msg_id: 'not-a-uuid' },
      { ...signed, from: 'gamma' },
      signed,
      { ...signed, text: 'the same id again' },
    ]);
    const found = (await doctor(root)).map((finding) => `${finding.code} ${finding.file}`);
    expect(found).toEqual([
      `MALFORMED_ENTRY teams/${team}/inboxes/alpha.json`,
      `LEAD_SIGNATURE_FROM_NON_LEAD teams/${team}/inboxes/alpha.json`,
      `DUPLICATE_MESSAGE_ID teams/${team}/inboxes/alpha.json`,
      `DUPLICATE_MESSAGE_ID teams/${team}/inboxes/alpha.json`,
    ]);

    await writeFile(path.join(root, 'teams', team, 'config.json'), '{"name": "session-');
    const corrupt = await doctor(root);
    expect(corrupt[0]).toMatchObject({
      severity: 'problem',
      code: 'DOES_NOT_PARSE',
      file: `teams/${team}/config.json`,
    });
  });

  it('reads a config caught half-written again before calling it corrupt', async () => {
    const root = await copyReferenceState('in-process-07-all-teammates-spawned');
    const team = await makeSessionLive(root);
    const file = path.join(root, 'teams', team, 'config.json');
    const whole = await readFile(file, 'utf8');
    // 2.1.330 rewrites config.json in place: a reader can see the first half only.
    await writeFile(file, whole.slice(0, whole.length / 2));
    const finishing = sleep(300).then(() => writeFile(file, whole));
    const findings = await doctor(root);
    await finishing;
    expect(faults(findings)).toEqual([]);
  });

  it('warns about a session team folder whose removal stopped half-way', async () => {
    const root = await copyReferenceState('in-process-13-all-teammates-removed-after-shutdown');
    const team = await makeSessionLive(root);
    const leftover = path.join(
      root,
      'teams',
      `${team}.deleted-0b7e9a4c-3f7e-4b8e-9d2a-5c1e2f3a4b5c`,
    );
    await mkdir(leftover);
    expect(faults(await doctor(root))).toEqual([]);
    const longAgo = new Date(Date.now() - 3_600_000);
    await utimes(leftover, longAgo, longAgo);
    const found = (await doctor(root)).map((finding) => `${finding.code} ${finding.file}`);
    expect(found).toContain(`LEFTOVER_DELETED_TEAM ${path.relative(root, leftover)}`);
  });
});
