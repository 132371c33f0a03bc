import Anthropic from '@anthropic-ai/sdk';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCommandLine } from './command-line.js';

const builtCli = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'cli.js');
const question = {
  model: 'claude-test-model',
  max_tokens: 64,
  messages: [{ role: 'user' as const, content: 'hi' }],
};
const SCRIPT = `export default (request) => request.body.messages.length > 1
  ? { content: [], fault: { kind: 'silence-after-headers' } }
  : { content: [{ type: 'text', text: 'from the child process' }] };
`;

let folder = '';
beforeAll(async () => {
  if (!existsSync(builtCli))
    throw new Error(
      `build the package first: ${builtCli} is missing (pnpm --filter @muster/scripted-model build)`,
    );
  folder = await mkdtemp(join(tmpdir(), 'scripted-model-cli-'));
  await writeFile(join(folder, 'script.mjs'), SCRIPT);
});
afterAll(async () => {
  if (folder) await rm(folder, { recursive: true, force: true });
});

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [builtCli, ...args],
      { encoding: 'utf8', timeout: 20_000 },
      (error, stdout, stderr) => {
        resolve({
          code: error ? (typeof error.code === 'number' ? error.code : 1) : 0,
          stdout,
          stderr,
        });
      },
    );
  });
}

async function start(args: string[]): Promise<{
  child: ChildProcess;
  url: string;
  output: () => string;
  exit: Promise<number | null>;
}> {
  const child = spawn(process.execPath, [builtCli, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const deadline = Date.now() + 30_000;
  // Wait for the whole banner (its last line), not just the URL: a pipe may split it anywhere.
  while (!/use it with: ANTHROPIC_BASE_URL=\S+ /.test(output)) {
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill('SIGKILL');
      throw new Error(`the CLI did not print its URL: ${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const url = /listening on (http:\/\/\S+)/.exec(output)?.[1] as string;
  return { child, url, output: () => output, exit };
}

describe('muster-scripted-model as a real child process', () => {
  it('prints a TEST DOUBLE banner and its URL, answers the SDK, logs, and exits 0 on SIGTERM with a stream open', async () => {
    const log = join(folder, 'requests.jsonl');
    const { child, url, output, exit } = await start([
      '--script',
      join(folder, 'script.mjs'),
      '--port',
      '0',
      '--log',
      log,
    ]);
    try {
      expect(output()).toContain('scripted TEST DOUBLE of the Anthropic Messages API');
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const client = new Anthropic({
        apiKey: 'test',
        baseURL: url,
        maxRetries: 0,
        timeout: 10_000,
      });
      const message = await client.messages.create(question);
      expect(message.content).toEqual([{ type: 'text', text: 'from the child process' }]);
      expect(message.model).toBe('claude-test-model (scripted test double)');
      const lines = (await readFile(log, 'utf8')).trim().split('\n');
      expect(JSON.parse(lines[0] as string)).toMatchObject({
        index: 0,
        status: 200,
        model: 'claude-test-model',
      });
      const silent = client.messages.stream({
        ...question,
        messages: [
          ...question.messages,
          { role: 'assistant', content: 'a' },
          { role: 'user', content: 'b' },
        ],
      });
      const failure = silent.finalMessage().catch((caught: unknown) => caught);
      await expect
        .poll(() => silent.response !== undefined || silent.request_id !== undefined, {
          timeout: 5000,
        })
        .toBe(true);
      child.kill('SIGTERM');
      expect(await exit).toBe(0);
      expect(await failure).toBeInstanceOf(Error);
      expect(output()).toContain('SIGTERM, closing every connection');
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('runs the built-in demo-team script and exits 0 on SIGINT', async () => {
    const { child, exit, output } = await start(['--script', 'demo-team']);
    try {
      expect(output()).toContain('script: demo-team (built in)');
      child.kill('SIGINT');
      expect(await exit).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it.each([
    [['--bogus'], 'unknown argument "--bogus"'],
    [[], '--script <file|demo-team> is required'],
    [['--script'], '--script needs a value'],
    [
      ['--script', 'x.mjs', '--port', 'eighty'],
      '--port must be an integer from 0 to 65535, got "eighty"',
    ],
    [
      ['--script', '/nonexistent/script.mjs'],
      'cannot load the script: Script not found: /nonexistent/script.mjs',
    ],
  ])('refuses %j with a clear error and exit code 2', async (args, message) => {
    const result = await run(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stderr).toContain('usage: muster-scripted-model --script <file|demo-team>');
  });
});

describe('parseCommandLine', () => {
  it('reads --flag value and --flag=value forms with defaults', () => {
    expect(parseCommandLine(['--script=a.mjs', '--log', 'x.jsonl'])).toEqual({
      script: 'a.mjs',
      port: 0,
      host: '127.0.0.1',
      log: 'x.jsonl',
    });
    expect(parseCommandLine(['--help'])).toBe('help');
  });
});
