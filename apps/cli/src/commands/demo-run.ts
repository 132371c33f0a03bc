// `muster demo --run [-p]`: the offline demo of a real team. A throwaway git repository with the
// demo project, @muster/scripted-model (a TEST DOUBLE of the Messages API, not a model) serving
// its `demo-team` script over HTTP in this process, and the team run exactly as `muster run`
// runs it: in the interactive app (its prompt on the prompt line, for the person to send), or
// headless with -p. Every line and every screen says it is a scripted demo.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createModelClient } from '@muster/query';
import {
  DEMO_TEAM_PERMISSION_RULES,
  DEMO_TEAM_PROMPT,
  DEMO_TEAM_REPOSITORY,
  demoTeamScript,
  startScriptedModel,
} from '@muster/scripted-model';
import { CliError } from '../cli-error.js';
import { startInteractive } from '../interactive/start-interactive.js';
import type { CommandContext } from '../context.js';
import { quoteShellArgument } from '../printed-command.js';
import { demoTeammateMode, describeDemoTeammateModes } from '../run/demo-teammate-mode.js';
import type { HeadlessFlags } from '../run/headless-flags.js';
import { checkPermissionRules, runTeamHeadless } from '../run/headless-run.js';
import { requireTerminal } from './run-command.js';

const run = promisify(execFile);

/**
 * The rules the demo allows unless `--allowed-tools` is given: bob's `node --test` runs for
 * real, edits inside the project's src/, test/ and README.md need no answer, and so do alice's
 * commit in her worktree and the lead's merge of her branch (`git add`, `git commit`,
 * `git merge`); what is left to ask is alice's `npm test` (and, with a person, bob's plan).
 */
export const DEMO_ALLOWED_TOOLS: string[] = [...DEMO_TEAM_PERMISSION_RULES];

/** Writes the demo project into `repository` and commits it (a real git repository). */
export async function makeDemoRepository(repository: string): Promise<void> {
  for (const [file, content] of Object.entries(DEMO_TEAM_REPOSITORY)) {
    const target = path.join(repository, file);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, content);
  }
  const git = (...args: string[]) =>
    run('git', ['-c', 'user.name=muster demo', '-c', 'user.email=demo@muster.invalid', ...args], {
      cwd: repository,
    });
  try {
    await git('init', '-q');
    // The repository's own identity: alice commits in her worktree under it.
    await git('config', 'user.name', 'muster demo');
    await git('config', 'user.email', 'demo@muster.invalid');
    await git('add', '.');
    await git('commit', '-q', '-m', 'demo-strings: capitalize');
  } catch (error) {
    throw new CliError({
      code: 'DEMO_SETUP',
      message: `Could not make the demo's git repository in ${repository}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}. The demo needs git on the PATH.`,
      cause: error,
    });
  }
}

/** `muster demo --run [-p] [flags]`. */
export async function demoRun(context: CommandContext, flags: HeadlessFlags): Promise<number> {
  const interactive = flags.print !== true;
  if (interactive) requireTerminal(context, 'muster demo --run');
  if (flags.cwd !== undefined) {
    throw new CliError({
      code: 'USAGE',
      message:
        '--cwd does not go with muster demo --run: the demo makes its own throwaway repository. Leave --cwd out.',
      details: { option: '--cwd' },
    });
  }
  const demoFlags: HeadlessFlags = {
    ...flags,
    allowedTools: flags.allowedTools ?? DEMO_ALLOWED_TOOLS,
  };
  checkPermissionRules(demoFlags);

  const folder = await mkdtemp(path.join(tmpdir(), 'muster-demo-run-'));
  const repository = path.join(folder, 'repo');
  const root = context.rootSource === 'option' ? context.root : path.join(folder, 'muster-home');
  await makeDemoRepository(repository);
  context.streams.stderr.write(
    `muster: scripted demo in ${repository} (team files under ${root}); it is kept: remove it with rm -rf ${quoteShellArgument(folder)}\n`,
  );
  const teammateMode = demoTeammateMode(flags.teammateMode, context.environment);
  context.streams.stderr.write(
    `muster: scripted demo teammates: ${describeDemoTeammateModes(flags.teammateMode, context.environment)}\n`,
  );
  const model = await startScriptedModel({ script: demoTeamScript });
  try {
    // Process teammates (pty, tmux) reach the same scripted model over HTTP.
    const modelEnvironment = {
      ANTHROPIC_API_KEY: 'scripted-demo-not-a-key',
      ANTHROPIC_BASE_URL: model.url,
    };
    const client = createModelClient({
      apiKey: modelEnvironment.ANTHROPIC_API_KEY,
      baseURL: modelEnvironment.ANTHROPIC_BASE_URL,
    });
    if (interactive) {
      return await startInteractive({
        context,
        flags: demoFlags,
        cwd: repository,
        root,
        client,
        initialInput: DEMO_TEAM_PROMPT,
        homeDirectory: folder,
        scriptedDemo: true,
        modelEnvironment,
        teammateMode,
      });
    }
    return await runTeamHeadless({
      context,
      prompt: DEMO_TEAM_PROMPT,
      flags: demoFlags,
      cwd: repository,
      root,
      client,
      homeDirectory: folder,
      scriptedDemo: true,
      modelEnvironment,
      teammateMode,
    });
  } finally {
    await model.close();
  }
}
