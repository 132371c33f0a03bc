// Walks a zod 4 schema's definition tree, for tests that check what a schema is built from.
import type { z } from 'zod';

interface Definition {
  type: string;
  checks?: Array<{ _zod: { def: { check: string } } }>;
  [key: string]: unknown;
}

const definitionOf = (schema: z.ZodType) =>
  (schema as unknown as { _zod: { def: Definition } })._zod.def;

/** Definition types that change a value while parsing it. */
const CHANGING_TYPES = new Set(['default', 'prefault', 'transform', 'pipe', 'catch', 'success']);

/** Every child schema a definition refers to. */
function children(definition: Definition): z.ZodType[] {
  const found: z.ZodType[] = [];
  const add = (value: unknown) => {
    if (value !== null && typeof value === 'object' && '_zod' in value)
      found.push(value as z.ZodType);
  };
  if (definition.type === 'object') {
    for (const value of Object.values(definition.shape as Record<string, unknown>)) add(value);
    add(definition.catchall);
  }
  if (definition.type === 'lazy') add((definition.getter as () => unknown)());
  for (const key of [
    'element',
    'innerType',
    'keyType',
    'valueType',
    'left',
    'right',
    'in',
    'out',
    'rest',
  ]) {
    add(definition[key]);
  }
  for (const key of ['options', 'items']) {
    const list = definition[key];
    if (Array.isArray(list)) list.forEach(add);
  }
  return found;
}

/**
 * Lists the places where a schema would hand back something other than its input: a
 * default, a transform, a pipe, a catch, or an overwriting check such as `.trim()`.
 */
export function findValueChanges(
  schema: z.ZodType,
  path = '(root)',
  seen = new Set<unknown>(),
): string[] {
  if (seen.has(schema)) return [];
  seen.add(schema);
  const definition = definitionOf(schema);
  const problems: string[] = [];
  if (CHANGING_TYPES.has(definition.type)) problems.push(`${path}: ${definition.type}`);
  for (const check of definition.checks ?? []) {
    if (check._zod.def.check === 'overwrite') problems.push(`${path}: overwriting check`);
  }
  const shape = definition.type === 'object' ? (definition.shape as Record<string, z.ZodType>) : {};
  const names = new Map(Object.entries(shape).map(([key, value]) => [value, key]));
  for (const child of children(definition)) {
    problems.push(
      ...findValueChanges(child, `${path}.${names.get(child) ?? definition.type}`, seen),
    );
  }
  return problems;
}
