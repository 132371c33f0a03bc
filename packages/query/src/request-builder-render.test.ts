import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { renderSystem, renderTools } from './request-builder-render.js';
import type { AnyTool } from './tool.js';

function tool(overrides: Partial<AnyTool> = {}): AnyTool {
  return {
    name: 'Read',
    description: 'Reads a file.',
    inputSchema: z.strictObject({
      file_path: z.string().describe('Absolute path'),
      limit: z.number().int().default(2000),
    }),
    isReadOnly: () => true,
    isConcurrencySafe: () => true,
    call: async () => ({ content: '' }),
    ...overrides,
  };
}

describe('renderTools', () => {
  it('renders name, description and the zod schema as the model reads it (input side, no $schema), frozen', () => {
    const [rendered] = renderTools([tool()]);
    expect(rendered).toEqual({
      name: 'Read',
      description: 'Reads a file.',
      input_schema: {
        type: 'object',
        properties: {
          file_path: { type: 'string', description: 'Absolute path' },
          limit: {
            default: 2000,
            type: 'integer',
            minimum: -9007199254740991,
            maximum: 9007199254740991,
          },
        },
        required: ['file_path'],
        additionalProperties: false,
      },
    });
    expect(Object.keys(rendered!)).toEqual(['name', 'description', 'input_schema']);
    expect(Object.isFrozen(rendered!.input_schema.properties)).toBe(true);
  });

  it('sends inputJsonSchema byte for byte (key order kept) when a tool gives one, as a copy', () => {
    const inputJsonSchema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      additionalProperties: false,
      required: ['b', 'a'],
      properties: { b: { type: 'string' }, a: { type: 'number' } },
    };
    const [rendered] = renderTools([tool({ inputJsonSchema })]);
    expect(JSON.stringify(rendered!.input_schema)).toBe(
      '{"type":"object","additionalProperties":false,"required":["b","a"],"properties":{"b":{"type":"string"},"a":{"type":"number"}}}',
    );
    inputJsonSchema.required.push('c');
    expect(rendered!.input_schema.required).toEqual(['b', 'a']);
  });

  it('gives the same bytes every time it renders the same tools', () => {
    expect(JSON.stringify(renderTools([tool(), tool({ name: 'Other' })]))).toBe(
      JSON.stringify(renderTools([tool(), tool({ name: 'Other' })])),
    );
  });

  it('refuses tools the API would refuse, saying which and why', () => {
    expect(() => renderTools([tool(), tool()])).toThrow(/two tools are named "Read"/);
    expect(() => renderTools([tool({ name: 'has space' })])).toThrow(
      /tools\[0\] has the name "has space"/,
    );
    expect(() => renderTools([tool({ description: ' ' })])).toThrow(
      /tool "Read" has no description/,
    );
    expect(() => renderTools([tool({ inputJsonSchema: { type: 'string' } })])).toThrow(
      /input schema of tool "Read" must have "type": "object"/,
    );
    expect(() => renderTools([tool({ inputSchema: {} as never })])).toThrow(
      /neither an inputJsonSchema nor a zod inputSchema/,
    );
    expect(() => renderTools('Read' as never)).toThrow(/tools must be an array/);
  });
});

describe('renderSystem', () => {
  it('turns a string into one text block and copies blocks without markers, frozen', () => {
    expect(renderSystem('Be brief.')).toEqual([{ type: 'text', text: 'Be brief.' }]);
    expect(renderSystem('')).toEqual([]);
    const blocks = [
      { type: 'text' as const, text: 'a', cache_control: { type: 'ephemeral' as const } },
    ];
    const rendered = renderSystem(blocks);
    expect(rendered).toEqual([{ type: 'text', text: 'a' }]);
    expect(blocks[0]!.cache_control).toEqual({ type: 'ephemeral' });
    expect(Object.isFrozen(rendered[0])).toBe(true);
  });

  it('refuses what is not a text block', () => {
    expect(() => renderSystem([{ type: 'image' } as never])).toThrow(
      /system\[0\] is not a text block/,
    );
    expect(() => renderSystem([{ type: 'text', text: '' }])).toThrow(/system\[0\] has empty text/);
    expect(() => renderSystem(42 as never)).toThrow(/must be a string or an array of text blocks/);
  });
});

describe('renderTools with zod schemas that carry a meta id', () => {
  it('inlines the $defs references zod writes, keeping descriptions', () => {
    const inner = z
      .object({ x: z.string().describe('an x') })
      .meta({ id: 'RenderInner', description: 'inner' });
    const inputSchema = z
      .strictObject({ a: z.string(), inner })
      .meta({ id: 'RenderOuter', description: 'outer' });
    const [rendered] = renderTools([tool({ inputSchema })]);
    expect(rendered!.input_schema).toEqual({
      type: 'object',
      properties: {
        a: { type: 'string' },
        inner: {
          type: 'object',
          properties: { x: { type: 'string', description: 'an x' } },
          required: ['x'],
          description: 'inner',
        },
      },
      required: ['a', 'inner'],
      additionalProperties: false,
      description: 'outer',
    });
  });

  it('refuses a recursive schema, saying to give inputJsonSchema', () => {
    const node: z.ZodType = z.lazy(() =>
      z.object({ children: z.array(node) }).meta({ id: 'RenderNode' }),
    );
    expect(() => renderTools([tool({ inputSchema: z.object({ root: node }) })])).toThrow(
      /refers to "#\/\$defs\/\w+", which is recursive; give inputJsonSchema explicitly/,
    );
  });
});

describe('renderTools with the input schemas Claude Code 2.1.45 offered', () => {
  it('sends each fixture schema given as inputJsonSchema byte for byte (without $schema)', () => {
    const folder = fileURLToPath(
      new URL('../../../fixtures/claude-code-2.1.45-all-tools/', import.meta.url),
    );
    const files = readdirSync(folder).filter((file) => file.endsWith('.input_schema.json'));
    expect(files.length).toBeGreaterThanOrEqual(20);
    const schemas = files.map((file) => ({
      name: file.replace('.input_schema.json', ''),
      schema: JSON.parse(readFileSync(folder + file, 'utf8')) as Record<string, unknown>,
    }));
    const rendered = renderTools(
      schemas.map(({ name, schema }) => tool({ name, inputJsonSchema: schema })),
    );
    rendered.forEach((entry, index) => {
      const { $schema: _ignored, ...expected } = schemas[index]!.schema;
      expect(entry.name).toBe(schemas[index]!.name);
      expect(JSON.stringify(entry.input_schema)).toBe(JSON.stringify(expected));
    });
  });
});
