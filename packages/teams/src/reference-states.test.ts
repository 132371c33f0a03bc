// Claude Code 2.1.45's own files, changed by muster: every byte that muster did not mean to
// change must stay as Claude Code wrote it. Expectations are built from the original text.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { makeTempDirectory } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import {
  addMember,
  addTeamAllowedPath,
  removeMember,
  setMemberActive,
  setMemberMode,
} from './index.js';
import { copyReferenceState, snapshotTree } from './test-helpers.js';

const ending = '\n  ]\n}';

const deltaBlock = `    {
      "agentId": "delta@conf-team",
      "name": "delta",
      "agentType": "general-purpose",
      "model": "claude-opus-4-6",
      "prompt": "You are delta.",
      "color": "purple",
      "planModeRequired": false,
      "joinedAt": 1795350960000,
      "tmuxPaneId": "in-process",
      "cwd": "/tmp/cc-team-run.VrSyaN/repo",
      "subscriptions": [],
      "backendType": "in-process"
    }`;

const delta = {
  name: 'delta',
  agentType: 'general-purpose',
  model: 'claude-opus-4-6',
  prompt: 'You are delta.',
  planModeRequired: false,
  cwd: '/tmp/cc-team-run.VrSyaN/repo',
  backendType: 'in-process' as const,
  tmuxPaneId: 'in-process',
  now: 1795350960000,
};

/** Inserts `text` right after the first `marker` that follows `anchor`. */
function insertAfter(original: string, anchor: string, marker: string, text: string): string {
  const at = original.indexOf(marker, original.indexOf(anchor)) + marker.length;
  expect(at).toBeGreaterThan(marker.length);
  return original.slice(0, at) + text + original.slice(at);
}

async function setUp(state = '06-all-teammates-spawned') {
  const root = await makeTempDirectory();
  await copyReferenceState(state, root);
  const configPath = path.join(root, 'teams/conf-team/config.json');
  const original = await readFile(configPath, 'utf8');
  const tasksBefore = await snapshotTree(path.join(root, 'tasks'));
  const inboxesBefore = await snapshotTree(path.join(root, 'teams/conf-team/inboxes'));
  const read = () => readFile(configPath, 'utf8');
  const othersUntouched = async () => {
    expect(await snapshotTree(path.join(root, 'tasks'))).toEqual(tasksBefore);
    expect(await snapshotTree(path.join(root, 'teams/conf-team/inboxes'))).toEqual(inboxesBefore);
  };
  return { root, configPath, original, read, othersUntouched };
}

describe.each(['06-all-teammates-spawned', '11-all-shutdowns-approved'])(
  'Claude Code reference state %s',
  (state) => {
    it('gets a new teammate appended in exactly Claude Code’s format', async () => {
      const { root, original, read, othersUntouched } = await setUp(state);
      expect(original.endsWith(ending)).toBe(true);
      const added = await addMember(root, 'conf-team', delta);
      expect(added.color).toBe('purple');
      const expected = `${original.slice(0, -ending.length)},\n${deltaBlock}${ending}`;
      expect(await read()).toBe(expected);
      await othersUntouched();
    });

    it('loses exactly one member block on removal', async () => {
      const { root, original, read, othersUntouched } = await setUp(state);
      await removeMember(root, 'conf-team', 'beta');
      const start = original.indexOf('    {\n      "agentId": "beta@conf-team"');
      const end = original.indexOf('    },\n', start) + '    },\n'.length;
      expect(await read()).toBe(original.slice(0, start) + original.slice(end));
      await othersUntouched();
    });

    it('gets mode and isActive appended to the member, then changed in place', async () => {
      const { root, original, read, othersUntouched } = await setUp(state);
      await setMemberMode(root, 'conf-team', 'gamma', 'plan');
      await setMemberActive(root, 'conf-team', 'gamma@conf-team', false);
      const withMode = insertAfter(
        original,
        '"agentId": "gamma@conf-team"',
        '"backendType": "in-process"',
        ',\n      "mode": "plan",\n      "isActive": false',
      );
      expect(await read()).toBe(withMode);
      await setMemberMode(root, 'conf-team', 'gamma', 'acceptEdits');
      expect(await read()).toBe(withMode.replace('"mode": "plan"', '"mode": "acceptEdits"'));
      await othersUntouched();
    });
  },
);

describe('fields muster does not know', () => {
  it('stay in place and in order through every kind of change', async () => {
    const { root, configPath, original, read } = await setUp();
    let text = insertAfter(
      original,
      '"leadSessionId"',
      '",',
      '\n  "futureTopLevel": {\n    "nested": [\n      1,\n      "two"\n    ]\n  },',
    );
    text = insertAfter(
      text,
      '"agentId": "alpha@conf-team"',
      '"color": "blue",',
      '\n      "futureMemberField": "kept",',
    );
    await writeFile(configPath, text);
    await addMember(root, 'conf-team', delta);
    await setMemberMode(root, 'conf-team', 'alpha', 'plan');
    await removeMember(root, 'conf-team', 'beta');
    let expected = `${text.slice(0, -ending.length)},\n${deltaBlock}${ending}`;
    expected = insertAfter(
      expected,
      '"agentId": "alpha@conf-team"',
      '"backendType": "in-process"',
      ',\n      "mode": "plan"',
    );
    const start = expected.indexOf('    {\n      "agentId": "beta@conf-team"');
    const end = expected.indexOf('    },\n', start) + '    },\n'.length;
    expected = expected.slice(0, start) + expected.slice(end);
    expect(await read()).toBe(expected);
  });

  it('team allowed paths are appended after members and de-duplicated by path and tool', async () => {
    const { root, original, read } = await setUp();
    const entry = {
      path: '/repo/src',
      toolName: 'Edit',
      addedBy: 'team-lead',
      addedAt: 1795350961000,
    };
    expect((await addTeamAllowedPath(root, 'conf-team', entry)).added).toBe(true);
    const expected =
      `${original.slice(0, -2)},\n  "teamAllowedPaths": [\n    {\n      "path": "/repo/src",\n` +
      `      "toolName": "Edit",\n      "addedBy": "team-lead",\n      "addedAt": 1795350961000\n    }\n  ]\n}`;
    expect(await read()).toBe(expected);
    const again = await addTeamAllowedPath(root, 'conf-team', { ...entry, addedBy: 'alpha' });
    expect(again).toEqual({ added: false, entry });
    expect(await read()).toBe(expected);
    const otherTool = await addTeamAllowedPath(root, 'conf-team', { ...entry, toolName: 'Write' });
    expect(otherTool.added).toBe(true);
    expect(JSON.parse(await read()).teamAllowedPaths).toHaveLength(2);
  });
});
