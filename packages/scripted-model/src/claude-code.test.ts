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
import type { Script, ScriptRequest } from './types.js';

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
  extraEnvironment: Record<string, string> = {},
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
          ...extraEnvironment,
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

type Block = {
  type: string;
  text?: string;
  name?: string;
  input?: Record<string, unknown>;
  content?: unknown;
};
const blocksOf = (content: unknown): Block[] =>
  typeof content === 'string' ? [{ type: 'text', text: content }] : (content as Block[]);
const textOf = (content: unknown): string =>
  blocksOf(content)
    .map((block) =>
      block.type === 'text'
        ? block.text
        : block.type === 'tool_result'
          ? JSON.stringify(block.content)
          : '',
    )
    .join('\n');
const messagesOf = (request: ScriptRequest) =>
  request.body.messages as { role: string; content: unknown }[];
const toolUsesOf = (request: ScriptRequest): Block[] =>
  messagesOf(request)
    .filter((message) => message.role === 'assistant')
    .flatMap((message) => blocksOf(message.content).filter((block) => block.type === 'tool_use'));
const conversationText = (request: ScriptRequest): string =>
  messagesOf(request)
    .map((message) => textOf(message.content))
    .join('\n');
const isTeammate = (request: ScriptRequest): boolean =>
  textOf(messagesOf(request)[0]?.content).includes('<teammate-message teammate_id="team-lead"');

/**
 * A lead that creates team "pair", spawns alice in process, waits (on the server, bounded) for her
 * hello, asks her to shut down, deletes the team once she approved; alice says hello to the lead
 * and approves the shutdown. Tool names and inputs are Claude Code 2.1.45's.
 */
const pairScript: Script = async (request, context) => {
  if ((request.body.tools ?? []).length === 0) return { content: [{ type: 'text', text: 'ok' }] };
  const used = (name: string, type?: string) =>
    toolUsesOf(request).some(
      (block) => block.name === name && (type === undefined || block.input?.type === type),
    );
  const text = conversationText(request);
  if (isTeammate(request)) {
    const shutdown =
      /shutdown_request[^}]*?requestId\W+([\w@.-]+)/.exec(text) ??
      /requestId\W+([\w@.-]+)[^}]*?shutdown_request/.exec(text);
    if (shutdown && !used('SendMessage', 'shutdown_response')) {
      return {
        content: [
          {
            type: 'tool_use',
            name: 'SendMessage',
            input: { type: 'shutdown_response', request_id: shutdown[1], approve: true },
          },
        ],
      };
    }
    if (!used('SendMessage', 'message')) {
      return {
        content: [
          {
            type: 'tool_use',
            name: 'SendMessage',
            input: {
              type: 'message',
              recipient: 'team-lead',
              content: 'Hello lead, alice here.',
              summary: 'alice says hello',
            },
          },
        ],
      };
    }
    return { content: [{ type: 'text', text: 'Sent my hello.' }] };
  }
  if (!used('TeamCreate')) {
    return {
      content: [
        {
          type: 'tool_use',
          name: 'TeamCreate',
          input: { team_name: 'pair', description: 'A scripted pair' },
        },
      ],
    };
  }
  if (!used('Task')) {
    return {
      content: [
        {
          type: 'tool_use',
          name: 'Task',
          input: {
            description: 'Say hello',
            prompt: 'Send the lead a hello message.',
            subagent_type: 'general-purpose',
            name: 'alice',
            team_name: 'pair',
          },
        },
      ],
    };
  }
  if (!used('SendMessage', 'shutdown_request')) {
    await context.waitForRequest(
      (other) => conversationText(other).includes('Message sent to team-lead'),
      {
        timeoutMs: 30_000,
        description: "alice's hello to the lead",
      },
    );
    return {
      content: [
        {
          type: 'tool_use',
          name: 'SendMessage',
          input: { type: 'shutdown_request', recipient: 'alice', content: 'Thanks, we are done.' },
        },
      ],
    };
  }
  if (text.includes('shutdown_approved') && !used('TeamDelete')) {
    return { content: [{ type: 'tool_use', name: 'TeamDelete', input: {} }] };
  }
  return {
    content: [
      {
        type: 'text',
        text: used('TeamDelete')
          ? 'Alice said hello and the team is shut down.'
          : 'Waiting for alice.',
      },
    ],
  };
};

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

  it('runs a scripted lead and one in-process teammate: team created, a message each way, shutdown, exit 0', async (context) => {
    if (unavailable) {
      console.warn(`skipped: Claude Code 2.1.45 is unavailable (${unavailable})`);
      context.skip();
    }
    await server?.close();
    server = await startScriptedModel({ script: pairScript, cache: createPromptCache() });
    const run = await runClaudeCode(
      server.url,
      home,
      'Create a team of one and say hello',
      ['--permission-mode', 'default', '--teammate-mode', 'in-process'],
      { CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS: '1', CLAUDE_CODE_ENABLE_TASKS: '1' },
    );
    expect(run.code, run.stderr).toBe(0);
    // One result per lead turn: the first while alice still runs, the last after the shutdown.
    expect(run.lines.filter((line) => line.type === 'result').at(-1)).toMatchObject({
      subtype: 'success',
      result: 'Alice said hello and the team is shut down.',
    });
    const requests = server.requests();
    const alice = requests.filter(isTeammate);
    const lead = requests.filter(
      (request) => !isTeammate(request) && (request.body.tools ?? []).length > 0,
    );
    // alice got the lead's shutdown request as a teammate message and approved it
    expect(alice.some((request) => conversationText(request).includes('shutdown_request'))).toBe(
      true,
    );
    // the lead got alice's hello as a teammate message
    expect(
      lead.some((request) =>
        conversationText(request).includes('<teammate-message teammate_id="alice"'),
      ),
    ).toBe(true);
    expect(
      lead.some((request) => conversationText(request).includes('Hello lead, alice here.')),
    ).toBe(true);
    expect(toolUsesOf(lead.at(-1) as ScriptRequest).map((block) => block.name)).toEqual([
      'TeamCreate',
      'Task',
      'SendMessage',
      'TeamDelete',
    ]);
  });
});
