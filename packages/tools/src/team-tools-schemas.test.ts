import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createLeadKeyring } from '@muster/permissions';
import { claudeCodeReferenceDirectory } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import { createTeamSession } from './team-session.js';
import { createTeamTools } from './team-tools.js';

const fixtures = path.join(
  path.dirname(claudeCodeReferenceDirectory()),
  'claude-code-2.1.45-all-tools',
);

/** The parts of a JSON Schema that must match Claude Code's: everything but descriptions. */
function shape(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(shape);
  if (schema === null || typeof schema !== 'object') return schema;
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'description' || key === '$schema') continue;
    result[key] =
      key === 'properties'
        ? Object.fromEntries(
            Object.entries(value as Record<string, unknown>).map(([name, field]) => [
              name,
              shape(field),
            ]),
          )
        : shape(value);
  }
  return result;
}

const tools = createTeamTools({
  root: '/nonexistent-root-for-schemas',
  session: createTeamSession({ role: 'lead' }),
  mailboxOptions: createLeadKeyring().mailboxOptions(),
}).all;

describe('team, task and message tool schemas', () => {
  it('offers the seven tools with Claude Code 2.1.45 names', () => {
    expect(tools.map((tool) => tool.name)).toEqual([
      'TeamCreate',
      'TeamDelete',
      'SendMessage',
      'TaskCreate',
      'TaskGet',
      'TaskUpdate',
      'TaskList',
    ]);
  });

  for (const tool of tools) {
    it(`${tool.name}: properties, required and additionalProperties equal the 2.1.45 schema`, () => {
      const reference = JSON.parse(
        readFileSync(path.join(fixtures, `${tool.name}.input_schema.json`), 'utf8'),
      ) as Record<string, unknown>;
      const ours = tool.inputJsonSchema as Record<string, unknown>;
      expect(ours.type).toBe('object');
      expect(ours).not.toHaveProperty('$ref');
      expect(ours).not.toHaveProperty('$defs');
      expect(ours).not.toHaveProperty('$schema');
      expect(shape(ours.properties)).toEqual(shape(reference.properties));
      expect([...((ours.required as string[] | undefined) ?? [])].sort()).toEqual(
        [...((reference.required as string[] | undefined) ?? [])].sort(),
      );
      expect(ours.additionalProperties).toBe(false);
      expect(reference.additionalProperties).toBe(false);
      expect(tool.description.length).toBeGreaterThan(40);
    });
  }
});
