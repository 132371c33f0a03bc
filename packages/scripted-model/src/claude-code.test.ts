// The real Claude Code 2.1.45 CLI against the HTTP transport. The CLI comes from the npm registry
// (`npm pack`, cached under the OS temp folder); without the registry the test is skipped and says why.
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedModel, type ScriptedModelServer } from './http-transport.js';
import { createPromptCache } from './prompt-cache.js';
import type { Script } from './types.js';

const CLAUDE_CODE_FOLDER = join(tmpdir(), 'muster-claude-code-2.1.45');
const CLAUDE_CODE_CLI = join(CLAUDE_CODE_FOLDER, 'package', 'cli.js');

function exec(
  command: string,
  args: string[],
  cwd: string,
  timeout: number,
): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, timeout, encoding: 'utf8' }, (error, _stdout, stderr) =>
      resolve(
        error ? `${command} ${args.join(' ')} failed: ${stderr || error.message}` : undefined,
      ),
    );
  });
}

/** Fetches Claude Code 2.1.45 once; returns why it is unavailable, or undefined. */
async function ensureClaudeCode(): Promise<string | undefined> {
  if (existsSync(CLAUDE_CODE_CLI)) return undefined;
  await mkdir(CLAUDE_CODE_FOLDER, { recursive: true });
  const packed = await exec(
    'npm',
    ['pack', '@anthropic-ai/claude-code@2.1.45', '--silent'],
    CLAUDE_CODE_FOLDER,
    180_000,
  );
  if (packed) return `the npm registry is not reachable: ${packed.slice(0, 300)}`;
  return exec('tar', ['xzf', 'anthropic-ai-claude-code-2.1.45.tgz'], CLAUDE_CODE_FOLDER, 60_000);
}

/** Runs `claude -p <prompt>` headless against `url`; resolves with its exit code and stream-json lines. */
function runClaudeCode(
  url: string,
  home: string,
  prompt: string,
  extraArgs: string[] = [],
): Promise<{ code: number | null; lines: Record<string, unknown>[]; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [CLAUDE_CODE_CLI, '-p', prompt, '--output-format', 'stream-json', '--verbose', ...extraArgs],
      {
        cwd: join(home, 'work'),
        env: {
          PATH: process.env.PATH ?? '',
          HOME: home,
          CLAUDE_CONFIG_DIR: join(home, '.claude'),
          ANTHROPIC_BASE_URL: url,
          ANTHROPIC_API_KEY: 'sk-scripted-test-double',
          DISABLE_TELEMETRY: '1',
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
          DISABLE_AUTOUPDATER: '1',
          IS_SANDBOX: '1',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      const lines = stdout
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      resolve({ code, lines, stderr });
    });
  });
}

let unavailable: string | undefined;
let home = '';
let server: ScriptedModelServer | undefined;

beforeAll(async () => {
  unavailable = await ensureClaudeCode();
  home = await mkdtemp(join(tmpdir(), 'scripted-model-claude-code-'));
  await mkdir(join(home, '.claude'), { recursive: true });
  await mkdir(join(home, 'work'), { recursive: true });
}, 300_000);
afterAll(async () => {
  await server?.close();
  if (home) await rm(home, { recursive: true, force: true });
});

describe('the real Claude Code 2.1.45 against the HTTP transport', () => {
  it('completes a headless turn and exits 0, reporting the scripted text', async (context) => {
    if (unavailable) {
      console.warn(`skipped: Claude Code 2.1.45 is unavailable (${unavailable})`);
      context.skip();
    }
    const script: Script = () => ({
      content: [{ type: 'text', text: 'Hello from the scripted test double.' }],
    });
    server = await startScriptedModel({ script, cache: createPromptCache() });
    const run = await runClaudeCode(server.url, home, 'Say hello');
    expect(run.code, run.stderr).toBe(0);
    const result = run.lines.find((line) => line.type === 'result');
    expect(result).toMatchObject({
      subtype: 'success',
      is_error: false,
      result: 'Hello from the scripted test double.',
    });
    const requests = server.requests();
    expect(requests.length).toBeGreaterThanOrEqual(1);
    for (const request of requests) {
      expect(request.path).toBe('/v1/messages?beta=true');
      expect(request.headers['anthropic-version']).toBe('2023-06-01');
      expect(request.headers['x-api-key']).toBe('sk-scripted-test-double');
      expect(request.body.stream).toBe(true);
    }
  });
});
