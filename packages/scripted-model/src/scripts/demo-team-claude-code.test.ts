// demo-team against the real Claude Code 2.1.45 (headless, in-process teammates, acceptEdits):
// the lead's team, tasks and spawns, alice's real edits and her `npm test` permission ask, bob's
// plan submitted through ExitPlanMode. The test plays the lead's answer to the permission ask
// (a permission_response appended to alice's inbox, as the lead's UI would), then sees alice
// finish and message bob and carol, and carol (an Explore teammate) read the code to review it. In -p mode Claude Code does not wake the lead for inbox entries while
// teammates run, so the rest of the lead's part is covered by demo-team-lead.test.ts.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, rmdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { findClaudeCode } from '@muster/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedModel, type ScriptedModelServer } from '../http-transport.js';
import { waitUntil } from '../script-context.js';
import { agentNameOf, lastUserText, toolResults } from '../script-helpers-tellers.js';
import { DEMO_TEAM_PROMPT, DEMO_TEAM_REPOSITORY } from './demo-team-content.js';
import { runCommand, writeRepository } from './demo-team-test-support.js';
import { demoTeamScript } from './demo-team.js';

/**
 * Finds Claude Code 2.1.45 with test-utils' findClaudeCode (the devDependency, else its private
 * per-user npm pack cache with the tarball's integrity checked); returns why it is unavailable.
 */
async function ensureClaudeCode(): Promise<string | undefined> {
  const location = await findClaudeCode(180_000);
  if ('unavailable' in location) return location.unavailable;
  claudeCodeCli = location.cli;
  return undefined;
}

let claudeCodeCli = '';

interface InboxEntry {
  from: string;
  text: string;
  read: boolean;
}

async function readInbox(path: string): Promise<InboxEntry[]> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as InboxEntry[];
  } catch {
    return [];
  }
}

/** Appends an entry under the inbox's proper-lockfile lock directory, as Claude Code's writers do. */
async function appendToInbox(path: string, entry: Record<string, unknown>): Promise<void> {
  await waitUntil(
    async () => {
      try {
        await mkdir(`${path}.lock`);
        return true;
      } catch {
        return undefined;
      }
    },
    { timeoutMs: 5_000, pollMs: 20, description: `the lock of ${path}` },
  );
  try {
    const entries = await readInbox(path);
    await writeFile(path, JSON.stringify([...entries, entry], null, 2));
  } finally {
    await rmdir(`${path}.lock`);
  }
}

let unavailable: string | undefined;
let folder = '';
let server: ScriptedModelServer | undefined;
let child: ChildProcess | undefined;

beforeAll(async () => {
  unavailable = await ensureClaudeCode();
  folder = await mkdtemp(join(tmpdir(), 'demo-team-claude-code-'));
}, 300_000);

afterAll(async () => {
  if (child?.pid !== undefined && child.exitCode === null) child.kill('SIGKILL');
  await server?.close();
  if (folder) await rm(folder, { recursive: true, force: true });
});

describe('demo-team with the real Claude Code 2.1.45', () => {
  it('lead, alice, bob and carol do their parts through the real CLI; alice asks permission for npm test', async (context) => {
    if (unavailable) {
      console.warn(`skipped: Claude Code 2.1.45 is unavailable (${unavailable})`);
      context.skip();
    }
    const repository = join(folder, 'repo');
    const home = join(folder, 'home');
    await writeRepository(repository, DEMO_TEAM_REPOSITORY);
    await mkdir(join(home, '.claude'), { recursive: true });
    server = await startScriptedModel({ script: demoTeamScript });
    child = spawn(
      process.execPath,
      [
        claudeCodeCli,
        '-p',
        DEMO_TEAM_PROMPT,
        '--permission-mode',
        'acceptEdits',
        '--teammate-mode',
        'in-process',
        '--output-format',
        'stream-json',
        '--verbose',
      ],
      {
        cwd: repository,
        stdio: 'ignore',
        env: {
          PATH: process.env.PATH ?? '',
          HOME: home,
          CLAUDE_CONFIG_DIR: join(home, '.claude'),
          ANTHROPIC_BASE_URL: server.url,
          ANTHROPIC_API_KEY: 'sk-scripted-test-double',
          CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS: '1',
          CLAUDE_CODE_ENABLE_TASKS: '1',
          DISABLE_TELEMETRY: '1',
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
          DISABLE_AUTOUPDATER: '1',
          IS_SANDBOX: '1',
        },
      },
    );
    const inboxes = join(home, '.claude', 'teams', 'slugify-team', 'inboxes');
    const leadInbox = join(inboxes, 'team-lead.json');
    const payloads = async () =>
      (await readInbox(leadInbox)).map(
        (entry) =>
          JSON.parse(entry.text.startsWith('{') ? entry.text : '{}') as Record<string, unknown>,
      );

    // alice asks permission for `npm test` (Write and Edit pass under acceptEdits); bob submits his plan.
    const ask = await waitUntil(
      async () =>
        (await payloads()).find(
          (payload) => payload.type === 'permission_request' && payload.tool_name === 'Bash',
        ),
      { timeoutMs: 60_000, pollMs: 100, description: "alice's permission request for npm test" },
    );
    expect(ask).toMatchObject({ agent_id: 'alice', input: { command: 'npm test' } });
    expect(await readFile(join(repository, 'src/index.js'), 'utf8')).toContain(
      "export { slugify } from './slugify.js';",
    );
    const plan = await waitUntil(
      async () => (await payloads()).find((payload) => payload.type === 'plan_approval_request'),
      { timeoutMs: 30_000, pollMs: 100, description: "bob's plan approval request" },
    );
    expect(plan).toMatchObject({
      from: 'bob',
      planContent: expect.stringContaining('# Plan: tests and docs for slugify()'),
    });
    const config = JSON.parse(await readFile(join(dirname(inboxes), 'config.json'), 'utf8')) as {
      members: { name: string; planModeRequired?: boolean }[];
    };
    expect(config.members.map((member) => [member.name, member.planModeRequired])).toEqual([
      ['team-lead', undefined],
      ['alice', false],
      ['bob', true],
      ['carol', false],
    ]);

    // The lead's answer to the permission ask: alice runs npm test, completes #1 and tells bob.
    await appendToInbox(join(inboxes, 'alice.json'), {
      from: 'team-lead',
      text: JSON.stringify({
        type: 'permission_response',
        request_id: ask?.request_id,
        subtype: 'success',
        response: { updated_input: ask?.input, permission_updates: [] },
      }),
      timestamp: new Date().toISOString(),
      read: false,
    });
    const bobHears = await waitUntil(
      () =>
        server
          ?.requests()
          .find(
            (request) =>
              agentNameOf(request) === 'bob' &&
              lastUserText(request).includes('<teammate-message teammate_id="alice"'),
          ),
      { timeoutMs: 60_000, pollMs: 100, description: "alice's message reaching bob" },
    );
    expect(lastUserText(bobHears)).toContain('slugify(text) is ready');
    // carol (an Explore teammate) hears alice too, and reads the implementation to review it.
    const carolReads = await waitUntil(
      () =>
        server
          ?.requests()
          .filter((request) => agentNameOf(request) === 'carol')
          .flatMap(toolResults)
          .find((result) => result.toolName === 'Read'),
      { timeoutMs: 60_000, pollMs: 100, description: 'carol reading src/slugify.js' },
    );
    expect(carolReads?.input.file_path).toBe(join(repository, 'src/slugify.js'));
    expect(carolReads?.content).toContain('export function slugify');
    const tests = server
      .requests()
      .flatMap(toolResults)
      .find((result) => result.toolName === 'Bash');
    expect(tests?.isError).toBe(false);
    expect(tests?.content).toMatch(/# pass 1/);
    const [output, failed] = runCommand('node --test', repository);
    expect(failed, output).toBe(false);
  }, 240_000);
});
