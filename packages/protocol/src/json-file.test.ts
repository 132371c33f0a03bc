import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { listReferenceFiles, type ReferenceFile } from '../test/reference-folder.js';
import { MusterError } from './errors.js';
import { formatHighWatermark, parseHighWatermark } from './high-watermark.js';
import {
  CLAUDE_CODE_JSON_STYLE,
  detectJsonFileStyle,
  formatJsonFile,
  parseJsonFile,
  safeParseJsonFile,
  safeValidate,
} from './json-file.js';
import { InboxMessageSchema, InboxSchema } from './mailbox.js';
import { TaskSchema, type Task } from './task.js';
import { TeamConfigSchema, type TeamConfig } from './team.js';

const referenceFiles = listReferenceFiles();
const read = (file: ReferenceFile) => readFileSync(file.absolutePath, 'utf8');
const schemaByKind = {
  'team-config': TeamConfigSchema,
  inbox: InboxSchema,
  task: TaskSchema,
  'inbox-entry': InboxMessageSchema,
  'tool-input-schema': z.record(z.string(), z.unknown()),
  // Kinds only the 2.1.330 folder has (checked in test/reference-files-v2.test.ts).
  'tools-offered-index': z.record(z.string(), z.unknown()),
  'signature-example': z.record(z.string(), z.unknown()),
} as const;

describe('JSON file style', () => {
  it('formats with two spaces and, by default, no trailing newline', () => {
    expect(formatJsonFile({ a: [1, { b: true }] })).toBe(
      '{\n  "a": [\n    1,\n    {\n      "b": true\n    }\n  ]\n}',
    );
    expect(formatJsonFile([])).toBe('[]');
    expect(CLAUDE_CODE_JSON_STYLE).toEqual({ trailingNewline: false });
  });

  it('detects and keeps a trailing newline when asked', () => {
    expect(detectJsonFileStyle('{}')).toEqual({ trailingNewline: false });
    expect(detectJsonFileStyle('{}\n')).toEqual({ trailingNewline: true });
    expect(formatJsonFile({}, { trailingNewline: true })).toBe('{}\n');
  });

  it('refuses values JSON cannot hold', () => {
    let thrown: unknown;
    try {
      formatJsonFile(undefined);
    } catch (error) {
      thrown = error;
    }
    expect(MusterError.hasCode(thrown, 'INVALID_INPUT')).toBe(true);
  });
});

describe('parsing shared files', () => {
  it('reports text that is not JSON as INVALID_JSON, naming the source', () => {
    const result = safeParseJsonFile('[{"from":', InboxSchema, 'inboxes/alpha.json');
    expect(result.success).toBe(false);
    if (result.success) return;
    expect(result.error.code).toBe('INVALID_JSON');
    expect(result.error.message).toMatch(/^inboxes\/alpha\.json is not valid JSON/);
  });

  it('reports a wrong shape as SCHEMA_MISMATCH with the path of each problem', () => {
    const result = safeParseJsonFile(
      '[{"from":"alpha","text":"hi","timestamp":"yesterday","read":"no"}]',
      InboxSchema,
      'inboxes/beta.json',
    );
    expect(result.success).toBe(false);
    if (result.success) return;
    expect(result.error.code).toBe('SCHEMA_MISMATCH');
    expect(result.error.message).toMatch(/inboxes\/beta\.json does not match/);
    expect(result.error.message).toMatch(/0\.timestamp: /);
    expect(result.error.message).toMatch(/0\.read: /);
    expect(() => parseJsonFile('{}', TaskSchema, 'tasks/t/1.json')).toThrow(
      /tasks\/t\/1\.json does not match the expected format/,
    );
  });

  it('returns the very object it parsed, not a copy made by the schema', () => {
    const raw = {
      id: '1',
      subject: 's',
      description: 'd',
      status: 'pending',
      blocks: [],
      blockedBy: [],
    };
    const result = safeValidate(raw, TaskSchema);
    expect(result.success && result.value).toBe(raw);
  });
});

describe('unknown fields survive a rewrite, in place and in order', () => {
  const configFile = referenceFiles.find(
    (file) => file.kind === 'team-config' && file.relativePath.startsWith('11-'),
  )!;
  const taskFile = referenceFiles.find(
    (file) => file.relativePath === '11-all-shutdowns-approved/tasks/conf-team/3.json',
  )!;

  it('config: unknown keys in the middle of the team and of a member', () => {
    const original = read(configFile);
    const withUnknown = original
      .replace(
        '"createdAt": 1795350958601,',
        '"createdAt": 1795350958601,\n  "x-future": {\n    "z": 1,\n    "a": [\n      true\n    ]\n  },',
      )
      .replace(
        '"model": "claude-opus-4-6",\n      "prompt": "SCENARIO-TEAMMATE:alpha',
        '"model": "claude-opus-4-6",\n      "heartbeatAt": 1795350999999,\n      "prompt": "SCENARIO-TEAMMATE:alpha',
      );
    expect(withUnknown).not.toBe(original);
    const config = parseJsonFile(withUnknown, TeamConfigSchema, 'config.json');
    expect(formatJsonFile(config)).toBe(withUnknown);

    // Changing a known field keeps every unknown key where it was.
    const edited: TeamConfig = { ...config, description: 'Renamed' };
    const alpha = edited.members[1]!;
    alpha.isActive = false;
    const text = formatJsonFile(edited);
    const keys = Object.keys(JSON.parse(text) as object);
    expect(keys.slice(0, 4)).toEqual(['name', 'description', 'createdAt', 'x-future']);
    expect(Object.keys((JSON.parse(text) as TeamConfig).members[1]!)).toEqual([
      'agentId',
      'name',
      'agentType',
      'model',
      'heartbeatAt',
      'prompt',
      'color',
      'planModeRequired',
      'joinedAt',
      'tmuxPaneId',
      'cwd',
      'subscriptions',
      'backendType',
      'isActive',
    ]);
  });

  it('task: unknown keys between known ones and inside metadata', () => {
    const original = read(taskFile);
    const withUnknown = original
      .replace('"activeForm": "Documenting",', '"activeForm": "Documenting",\n  "priority": 2,')
      .replace('"priority": "low"', '"priority": "low",\n    "estimate": null');
    const task: Task = parseJsonFile(withUnknown, TaskSchema, '3.json');
    expect(formatJsonFile(task)).toBe(withUnknown);
    const reassigned = { ...task, owner: 'beta' };
    expect(formatJsonFile(reassigned)).toBe(
      withUnknown.replace('"owner": "alpha"', '"owner": "beta"'),
    );
  });

  it('inbox: unknown keys on an entry', () => {
    const text = formatJsonFile([
      {
        from: 'alpha',
        text: 'hi',
        deliveredBy: 'muster',
        timestamp: '2026-01-01T00:00:00.000Z',
        read: false,
      },
    ]);
    expect(formatJsonFile(parseJsonFile(text, InboxSchema))).toBe(text);
  });
});

describe('every Claude Code reference file round-trips byte for byte', () => {
  it('covers every kind of file in the folder', () => {
    const kinds = new Set(referenceFiles.map((file) => file.kind));
    expect([...kinds].sort()).toEqual(
      [
        'high-watermark',
        'inbox',
        'inbox-entry',
        'task',
        'tasks-lock',
        'team-config',
        'tool-input-schema',
      ].sort(),
    );
  });

  it.each(referenceFiles.map((file) => [file.relativePath, file]))('%s', (_path, file) => {
    const text = read(file);
    switch (file.kind) {
      case 'tasks-lock':
        expect(text).toBe('');
        return;
      case 'high-watermark':
        expect(formatHighWatermark(parseHighWatermark(text))).toBe(text);
        return;
      default: {
        const style = detectJsonFileStyle(text);
        // Claude Code's own files have no trailing newline; the protocol/ and tools/ samples
        // were written by a harness and do.
        expect(style.trailingNewline).toBe(
          file.kind === 'inbox-entry' || file.kind === 'tool-input-schema',
        );
        const value = parseJsonFile(text, schemaByKind[file.kind], file.relativePath);
        expect(formatJsonFile(value, style)).toBe(text);
      }
    }
  });
});

describe('.highwatermark', () => {
  it('reads and writes a bare number', () => {
    expect(parseHighWatermark('4')).toBe(4);
    expect(parseHighWatermark('0')).toBe(0);
    expect(parseHighWatermark(' 12\n')).toBe(12);
    expect(parseHighWatermark('')).toBe(0);
    expect(formatHighWatermark(4)).toBe('4');
  });

  it('refuses anything else', () => {
    for (const text of ['x', '-1', '1.5', '01', '4 5']) {
      expect(() => parseHighWatermark(text, 'tasks/t/.highwatermark')).toThrow(
        /tasks\/t\/\.highwatermark should hold one whole number/,
      );
    }
    for (const value of [-1, 1.5, Number.NaN, Number.MAX_SAFE_INTEGER + 1]) {
      expect(() => formatHighWatermark(value)).toThrow(/whole number/);
    }
  });
});
