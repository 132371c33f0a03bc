import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, copyReferenceState } from '../test-support/reference.js';
import {
  containsRawHostileCharacters,
  HOSTILE_TEXT,
  HOSTILE_TEXT_ESCAPED,
} from '../test-support/hostile-text.js';
import { runMuster } from '../test-support/run-cli.js';

beforeAll(assertBuilt);

async function editJson(file: string, change: (value: Record<string, unknown>) => unknown) {
  const value = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
  await writeFile(file, JSON.stringify(change(value), null, 2));
}

/**
 * A copy of the reference team where an agent (or anyone who can write the files) put
 * terminal escape sequences, a carriage return and a right-to-left override into the team
 * description, a task subject, a message, a sender's name and an inbox file name.
 */
async function hostileTeam(): Promise<string> {
  const root = await copyReferenceState('06-all-teammates-spawned');
  const team = path.join(root, 'teams', 'conf-team');
  await editJson(path.join(team, 'config.json'), (config) => ({
    ...config,
    description: HOSTILE_TEXT,
  }));
  await editJson(path.join(root, 'tasks', 'conf-team', '2.json'), (task) => ({
    ...task,
    subject: HOSTILE_TEXT,
  }));
  await editJson(path.join(team, 'inboxes', 'alpha.json'), (messages) => [
    ...(messages as unknown as unknown[]),
    { from: 'team-lead', text: HOSTILE_TEXT, timestamp: new Date().toISOString(), read: false },
    {
      from: `beta${HOSTILE_TEXT}`,
      text: 'second',
      timestamp: new Date().toISOString(),
      read: false,
    },
  ]);
  await writeFile(path.join(team, 'inboxes', `x${HOSTILE_TEXT}.json`), '[]');
  return root;
}

describe('what agents wrote reaches the terminal escaped, never raw', () => {
  it('muster watch --once', async () => {
    const root = await hostileTeam();
    const run = await runMuster(['watch', '--once', '--root', root]);
    expect(run.code, run.stderr).toBe(0);
    expect(containsRawHostileCharacters(run.stdout)).toBe(false);
    expect(run.stdout).toContain(HOSTILE_TEXT_ESCAPED);
    expect(run.stdout).toContain('beta' + HOSTILE_TEXT_ESCAPED.slice(0, 12));
  });

  it('muster inbox', async () => {
    const root = await hostileTeam();
    const run = await runMuster(['inbox', 'alpha', '--root', root]);
    expect(run.code, run.stderr).toBe(0);
    expect(containsRawHostileCharacters(run.stdout)).toBe(false);
    expect(run.stdout).toContain(`team-lead: ${HOSTILE_TEXT_ESCAPED}`);
    expect(run.stdout).toContain(`beta${HOSTILE_TEXT_ESCAPED}: second`);
  });

  it('muster doctor', async () => {
    const root = await hostileTeam();
    const run = await runMuster(['doctor', '--root', root]);
    expect(containsRawHostileCharacters(run.stdout + run.stderr)).toBe(false);
    expect(run.stdout).toContain(`x${HOSTILE_TEXT_ESCAPED}.json`);
  });
});
