import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { referenceDirectory } from '../test-support/reference.js';
import type { FileSchemaName } from './file-validator.js';
import { createJsonSchemaValidator } from './json-schema-validator.js';
import { createZodValidator } from './zod-validator.js';

const validators = [createJsonSchemaValidator(), createZodValidator()];

async function referenceFiles(): Promise<
  { file: string; schema: FileSchemaName; value: unknown }[]
> {
  const files = [];
  for (const state of ['06-all-teammates-spawned', '11-all-shutdowns-approved']) {
    const team = path.join(referenceDirectory, state, 'teams', 'conf-team');
    files.push({ file: path.join(team, 'config.json'), schema: 'TeamConfig' as const });
    for (const name of await readdir(path.join(team, 'inboxes'))) {
      files.push({ file: path.join(team, 'inboxes', name), schema: 'Inbox' as const });
    }
    const tasks = path.join(referenceDirectory, state, 'tasks', 'conf-team');
    for (const name of (await readdir(tasks)).filter((entry) => entry.endsWith('.json'))) {
      files.push({ file: path.join(tasks, name), schema: 'Task' as const });
    }
  }
  return Promise.all(
    files.map(async (entry) => ({
      ...entry,
      value: JSON.parse(await readFile(entry.file, 'utf8')) as unknown,
    })),
  );
}

describe('file validators', () => {
  it('both the published JSON Schemas and the zod schemas accept every reference file', async () => {
    const files = await referenceFiles();
    expect(files).toHaveLength(19);
    for (const { file, schema, value } of files) {
      for (const validator of validators) {
        expect({
          file,
          validator: validator.description,
          problems: validator.validate(schema, value),
        }).toEqual({
          file,
          validator: validator.description,
          problems: [],
        });
      }
    }
  });

  it('both name the field that is wrong', () => {
    const task = {
      id: '1',
      subject: 's',
      description: 'd',
      status: 'finished',
      blocks: [],
      blockedBy: [],
    };
    const inbox = [{ from: 'a', text: 't', timestamp: 'yesterday', read: false }];
    for (const validator of validators) {
      expect(validator.validate('Task', task).join('\n')).toContain('status');
      expect(validator.validate('Inbox', inbox).join('\n')).toContain('0.timestamp');
      expect(validator.validate('TeamConfig', { name: 'x' }).length).toBeGreaterThan(0);
      expect(validator.validate('InboxMessage', inbox[0])).not.toEqual([]);
    }
  });
});
