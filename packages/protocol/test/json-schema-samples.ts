// Generates inputs a JSON Schema (as Claude Code's tool schemas are written) accepts, to
// check that our schemas accept them too. Covers: every subset of optional properties
// (or, for many, a spread of them), every enum value, and boundary values one at a time.

type JsonSchema = {
  type?: string;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  maximum?: number;
  exclusiveMinimum?: number;
  minimum?: number;
  items?: JsonSchema;
};

/** Values the schema accepts: the first is the typical one, the rest are variations. */
export function sampleValues(schema: JsonSchema): unknown[] {
  if (schema.anyOf) return schema.anyOf.flatMap(sampleValues);
  if (schema.const !== undefined) return [schema.const];
  if (schema.enum) return [...schema.enum];
  switch (schema.type) {
    case 'string':
      return ['alpha', '7', '', ' ', 'name@team', 'ünïcödé ✓'];
    case 'boolean':
      return [true, false];
    case 'integer': {
      const low =
        schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : (schema.minimum ?? 0);
      return [low, low + 9, schema.maximum ?? 1_000_000];
    }
    case 'number':
      return [1, 0.5];
    case 'array': {
      const items = sampleValues(schema.items ?? {});
      return [[], [items[0]], [items[1]], [items[0], items[1]]];
    }
    case 'object':
      return [{}, { priority: 'low', nested: { list: [1, null], flag: true } }];
    default:
      return [null, 'anything', 1, { any: true }];
  }
}

function subsets<T>(items: readonly T[]): T[][] {
  if (items.length <= 7) {
    return Array.from({ length: 2 ** items.length }, (_, mask) =>
      items.filter((_, index) => (mask >> index) & 1),
    );
  }
  const result: T[][] = [[], [...items]];
  for (const item of items) {
    result.push(
      [item],
      items.filter((other) => other !== item),
    );
  }
  return result;
}

/** Inputs `schema` (an object schema) accepts; deterministic, deduplicated. */
export function sampleObjects(schema: JsonSchema): Array<Record<string, unknown>> {
  const properties = schema.properties ?? {};
  const required = schema.required ?? [];
  const optional = Object.keys(properties).filter((key) => !required.includes(key));
  const values = Object.fromEntries(
    Object.entries(properties).map(([key, property]) => [key, sampleValues(property)]),
  );
  // Required enum-valued properties are crossed in full: rules often depend on them.
  let bases: Array<Record<string, unknown>> = [{}];
  for (const key of required) {
    const crossed = properties[key]?.enum ? values[key]! : [values[key]![0]];
    bases = bases.flatMap((base) => crossed.map((value) => ({ ...base, [key]: value })));
  }
  const seen = new Set<string>();
  const samples: Array<Record<string, unknown>> = [];
  const add = (sample: Record<string, unknown>) => {
    const key = JSON.stringify(sample);
    if (!seen.has(key)) {
      seen.add(key);
      samples.push(sample);
    }
  };
  for (const base of bases) {
    for (const subset of subsets(optional)) {
      const sample = { ...base };
      for (const key of subset) sample[key] = values[key]![0];
      add(sample);
      for (const key of Object.keys(sample)) {
        for (const variant of values[key]!.slice(1)) add({ ...sample, [key]: variant });
      }
    }
  }
  return samples;
}
