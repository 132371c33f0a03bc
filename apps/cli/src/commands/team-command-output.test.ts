import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { makeTempDirectory } from '@muster/test-utils';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  containsRawHostileCharacters,
  HOSTILE_TEXT,
  HOSTILE_TEXT_ESCAPED,
} from '../test-support/hostile-text.js';
import { assertBuilt } from '../test-support/reference.js';
import { runMuster } from '../test-support/run-cli.js';

beforeAll(assertBuilt);

describe('what team, tasks and send commands print is safe for the terminal', () => {
  it('escapes names, descriptions, subjects and senders from disk and arguments', async () => {
    const root = await makeTempDirectory('muster-cli-output-');
    const muster = (...args: string[]) => runMuster([...args, '--root', root]);
    expect((await muster('team', 'create', 'work', '--description', HOSTILE_TEXT)).code).toBe(0);
    // A member whose name (as written by some other tool) holds the hostile text.
    const configPath = path.join(root, 'teams', 'work', 'config.json');
    const config = JSON.parse(await readFile(configPath, 'utf8')) as {
      members: Record<string, unknown>[];
    };
    config.members.push({ ...config.members[0], name: HOSTILE_TEXT, agentId: 'x@work' });
    await writeFile(configPath, JSON.stringify(config, null, 2));
    expect((await muster('tasks', 'add', HOSTILE_TEXT)).code).toBe(0);

    const outputs = [
      await muster('team', 'list'),
      await muster('team', 'show'),
      await muster('tasks', 'list'),
      await muster('tasks', 'show', '1'),
      await muster('send', HOSTILE_TEXT, 'hello'),
      await muster('tasks', 'claim', '1', '--agent', HOSTILE_TEXT),
    ];
    for (const run of outputs) {
      expect(containsRawHostileCharacters(run.stdout + run.stderr)).toBe(false);
    }
    expect(outputs[0]!.stdout).toContain(HOSTILE_TEXT_ESCAPED);
    expect(outputs[1]!.stdout).toContain(HOSTILE_TEXT_ESCAPED);
    expect(outputs[2]!.stdout).toContain(HOSTILE_TEXT_ESCAPED);
    // --json stays exact once parsed, but carries no raw bidi or escape characters either.
    const json = await muster('tasks', 'show', '1', '--json');
    expect(containsRawHostileCharacters(json.stdout)).toBe(false);
    expect((JSON.parse(json.stdout) as { task: { subject: string } }).task.subject).toBe(
      HOSTILE_TEXT,
    );
    const jsonError = await muster('tasks', 'claim', '1', '--agent', `${HOSTILE_TEXT}2`, '--json');
    expect(containsRawHostileCharacters(jsonError.stderr)).toBe(false);
    expect(JSON.parse(jsonError.stderr)).toMatchObject({ error: { code: 'NOT_FOUND' } });
    // A wrong argument echoed in an error is escaped too.
    const unknown = await muster('send', 'team-lead', 'hi', '--from', `${HOSTILE_TEXT}2`);
    expect(unknown.code).toBe(1);
    expect(containsRawHostileCharacters(unknown.stderr)).toBe(false);
  }, 120_000);
});
