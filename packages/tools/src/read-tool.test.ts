import { execFileSync } from 'node:child_process';
import { open, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ToolResult } from '@muster/query';
import { describe, expect, it } from 'vitest';
import { fileReadState } from './file-read-state.js';
import { createReadTool } from './read-tool.js';
import type { ReadInput } from './read-tool.js';
import {
  claudeCodeToolSchema,
  createTestToolContext,
  makeProjectTree,
  toolRefusal,
  toolSchemaShape,
} from './test-support.js';

async function setUp(): Promise<
  { project: string; read: (input: ReadInput) => Promise<ToolResult> } & ReturnType<
    typeof createTestToolContext
  >
> {
  const { project } = await makeProjectTree('muster-read-');
  const test = createTestToolContext({ cwd: project });
  const tool = createReadTool();
  return { project, ...test, read: (input) => tool.call(ReadInputParse(input), test.context) };
}

/** Parses like the loop does before calling. */
function ReadInputParse(input: ReadInput): ReadInput {
  return createReadTool().inputSchema.parse(input);
}

const refusal = (promise: Promise<unknown>) => toolRefusal(promise, 'Read');

function text(result: ToolResult): string {
  expect(typeof result.content).toBe('string');
  return result.content as string;
}

/** Writes `lines` lines of `line <n>` (1-based) to `file`. */
async function writeLines(file: string, lines: number, width = 0): Promise<void> {
  const body = Array.from({ length: lines }, (_, index) =>
    `line ${index + 1}`.padEnd(width, '.'),
  ).join('\n');
  await writeFile(file, `${body}\n`);
}

describe('Read', () => {
  it('sends the JSON Schema of Claude Code 2.1.45 (names, types, required, additionalProperties)', () => {
    const schema = createReadTool().inputJsonSchema;
    expect(schema?.$schema).toBeUndefined();
    expect(toolSchemaShape(schema)).toEqual(toolSchemaShape(claudeCodeToolSchema('Read')));
  });

  it('numbers lines like cat -n and stops at 2000 lines with a note on how to go on', async () => {
    const { project, read, context } = await setUp();
    await writeLines(path.join(project, 'long.txt'), 2500);
    const output = text(await read({ file_path: 'long.txt' }));
    const lines = output.split('\n');
    expect(lines[0]).toBe('     1\tline 1');
    expect(lines[1999]).toBe('  2000\tline 2000');
    expect(output).not.toContain('line 2001');
    expect(output).toContain('Continue with offset 2001');
    expect(fileReadState(context).get(path.join(project, 'long.txt'))?.whole).toBe(false);
  });

  it('reads offset and limit, strips CR and a BOM, and records a whole read with a hash', async () => {
    const { project, read, context } = await setUp();
    await writeFile(path.join(project, 'crlf.txt'), '\uFEFFfirst\r\nsecond\r\nthird\r\n');
    expect(text(await read({ file_path: 'crlf.txt', offset: 2, limit: 1 }))).toBe(
      '     2\tsecond\n(Stopped at line 2 because the limit was reached; the file has more. Continue with offset 3.)',
    );
    expect(fileReadState(context).get(path.join(project, 'crlf.txt'))?.whole).toBe(false);
    expect(text(await read({ file_path: 'crlf.txt' }))).toBe(
      '     1\tfirst\n     2\tsecond\n     3\tthird',
    );
    const record = fileReadState(context).get(path.join(project, 'crlf.txt'));
    expect(record?.whole).toBe(true);
    expect(record?.hash).toMatch(/^[0-9a-f]{64}$/u);
  });

  it('counts a read of exactly `limit` lines as whole (nothing follows)', async () => {
    const { project, read, context } = await setUp();
    await writeLines(path.join(project, 'exact.txt'), 5);
    const output = text(await read({ file_path: 'exact.txt', limit: 5 }));
    expect(output).not.toContain('Continue');
    expect(fileReadState(context).get(path.join(project, 'exact.txt'))?.whole).toBe(true);
  });

  it('cuts long lines at 2000 characters and says so', async () => {
    const { project, read } = await setUp();
    await writeFile(path.join(project, 'wide.txt'), `${'x'.repeat(5000)}\nshort\n`);
    const output = text(await read({ file_path: 'wide.txt' }));
    expect(output.split('\n')[0]).toBe(`     1\t${'x'.repeat(2000)}`);
    expect(output).toContain('     2\tshort');
    expect(output).toContain('1 long line(s) were cut');
  });

  it('says when a file is empty or the offset is past the end', async () => {
    const { project, read } = await setUp();
    await writeFile(path.join(project, 'empty.txt'), '');
    await writeLines(path.join(project, 'three.txt'), 3);
    expect(text(await read({ file_path: 'empty.txt' }))).toContain('exists but is empty');
    expect(text(await read({ file_path: 'three.txt', offset: 10 }))).toContain(
      'has 3 lines; offset 10 is past the end',
    );
  });

  it('refuses a file over 256 KiB without offset/limit, naming its size and what to do', async () => {
    const { project, read } = await setUp();
    await writeLines(path.join(project, 'big.txt'), 30_000, 10);
    const error = await refusal(read({ file_path: 'big.txt' }));
    expect(error.code).toBe('FILE_TOO_LARGE');
    expect(error.message).toMatch(/KiB.*offset and limit/u);
    expect(text(await read({ file_path: 'big.txt', offset: 29_999, limit: 5 }))).toBe(
      ' 29999\tline 29999\n 30000\tline 30000\n(End of file: 30000 lines, 322.3 KiB.)',
    );
  });

  it('reads the end of a 50 MB file without loading it whole (memory stays small)', async () => {
    const { project, read } = await setUp();
    const file = path.join(project, 'huge.log');
    const handle = await open(file, 'w');
    const block =
      Array.from({ length: 10_000 }, (_, index) => `entry ${index} ${'-'.repeat(90)}`).join('\n') +
      '\n';
    let lines = 0;
    while (lines * 100 < 50 * 1024 * 1024) {
      await handle.write(block);
      lines += 10_000;
    }
    await handle.close();
    // One 50 MB line with no newline at all: a line reader that buffers whole lines would hold all of it.
    const oneLine = path.join(project, 'one-line.txt');
    const oneLineHandle = await open(oneLine, 'w');
    const chunk = 'y'.repeat(1024 * 1024);
    for (let index = 0; index < 50; index += 1) await oneLineHandle.write(chunk);
    await oneLineHandle.close();

    const measure = async (
      run: () => Promise<ToolResult>,
    ): Promise<{ result: ToolResult; peakGrowth: number }> => {
      const usage = () => {
        const memory = process.memoryUsage();
        return memory.heapUsed + memory.external;
      };
      const baseline = usage();
      let peak = baseline;
      const sampler = setInterval(() => {
        peak = Math.max(peak, usage());
      }, 1);
      try {
        const result = await run();
        peak = Math.max(peak, usage());
        return { result, peakGrowth: peak - baseline };
      } finally {
        clearInterval(sampler);
      }
    };

    const tail = await measure(() => read({ file_path: 'huge.log', offset: lines - 1, limit: 10 }));
    expect(text(tail.result).split('\n').slice(0, 2)).toEqual([
      `${String(lines - 1).padStart(6)}\tentry 9998 ${'-'.repeat(90)}`,
      `${String(lines).padStart(6)}\tentry 9999 ${'-'.repeat(90)}`,
    ]);
    const head = await measure(() => read({ file_path: 'one-line.txt', limit: 1 }));
    expect(text(head.result).split('\n')[0]).toBe(`     1\t${'y'.repeat(2000)}`);
    console.log(
      `Read of a 50 MB file: peak memory growth ${(tail.peakGrowth / 1024 / 1024).toFixed(1)} MiB (last lines), ${(head.peakGrowth / 1024 / 1024).toFixed(1)} MiB (one 50 MB line)`,
    );
    expect(tail.peakGrowth).toBeLessThan(16 * 1024 * 1024);
    expect(head.peakGrowth).toBeLessThan(16 * 1024 * 1024);
    expect((await refusal(read({ file_path: 'huge.log' }))).message).toContain('MiB');
  });

  it('refuses binary files, directories, FIFOs, PDFs and pages on a text file with clear messages', async () => {
    const { project, read } = await setUp();
    await writeFile(
      path.join(project, 'program.bin'),
      Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2]),
    );
    await writeFile(path.join(project, 'paper.pdf'), '%PDF-1.7\n');
    await writeFile(path.join(project, 'notes.txt'), 'notes\n');
    execFileSync('mkfifo', [path.join(project, 'pipe')]);
    expect((await refusal(read({ file_path: 'program.bin' }))).code).toBe('BINARY_FILE');
    expect((await refusal(read({ file_path: '.' }))).code).toBe('IS_A_DIRECTORY');
    expect((await refusal(read({ file_path: 'pipe' }))).code).toBe('NOT_A_FILE');
    expect((await refusal(read({ file_path: 'paper.pdf', pages: '1-2' }))).message).toContain(
      'cannot read PDF',
    );
    expect((await refusal(read({ file_path: 'notes.txt', pages: '1' }))).message).toContain(
      'PDF files only',
    );
    expect((await refusal(read({ file_path: 'missing.txt' }))).code).toBe('FILE_NOT_FOUND');
    expect((await refusal(read({ file_path: 'notes.txt', offset: -3 }))).message).toContain(
      'offset must be',
    );
    expect((await refusal(read({ file_path: 'notes.txt', limit: 1.5 }))).message).toContain(
      'limit must be',
    );
  });

  it('returns PNG/JPEG/GIF/WebP as image blocks by their magic bytes, and refuses a fake or oversized one', async () => {
    const { project, read, context } = await setUp();
    const png = Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      Buffer.alloc(16, 1),
    ]);
    await writeFile(path.join(project, 'logo.png'), png);
    await writeFile(
      path.join(project, 'photo.jpg'),
      Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]),
    );
    await writeFile(path.join(project, 'fake.webp'), 'not an image at all');
    const result = await read({ file_path: 'logo.png' });
    expect(result.content).toEqual([
      {
        type: 'image',
        source: { type: 'base64', media_type: 'image/png', data: png.toString('base64') },
      },
    ]);
    expect(fileReadState(context).get(path.join(project, 'logo.png'))?.whole).toBe(true);
    expect((await read({ file_path: 'photo.jpg' })).content).toMatchObject([
      { source: { media_type: 'image/jpeg' } },
    ]);
    expect((await refusal(read({ file_path: 'fake.webp' }))).code).toBe('UNSUPPORTED_FILE_TYPE');
    const small = createReadTool({ maxImageBytes: 8 });
    expect((await refusal(small.call({ file_path: 'logo.png' }, context))).code).toBe(
      'FILE_TOO_LARGE',
    );
  });

  it('refuses paths outside the roots and links that leave them', async () => {
    const { project, read } = await setUp();
    const outside = path.join(path.dirname(project), 'outside.txt');
    await writeFile(outside, 'secret\n');
    await symlink(outside, path.join(project, 'link.txt'));
    expect((await refusal(read({ file_path: '../outside.txt' }))).code).toBe('PATH_OUTSIDE_ROOTS');
    expect((await refusal(read({ file_path: 'link.txt' }))).code).toBe('SYMLINK_ESCAPES');
  });

  it('stops when the turn is aborted', async () => {
    const { project, read, abort } = await setUp();
    await writeLines(path.join(project, 'a.txt'), 3);
    abort();
    expect((await refusal(read({ file_path: 'a.txt' }))).code).toBe('ABORTED');
  });
});
