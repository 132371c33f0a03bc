// Test support (not exported): the offline demo's team — @muster/scripted-model's `demo-team`
// script, a TEST DOUBLE of the Messages API, playing the lead and its three teammates — in a
// real team runtime over the demo's real repository, answered by a person (the test) unless
// the options say otherwise.
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import {
  DEMO_TEAM_PERMISSION_RULES,
  DEMO_TEAM_REPOSITORY,
  demoTeamScript,
} from '@muster/scripted-model';
import type { TeamEvent } from './team-event.js';
import type { TeamRuntimeOptions } from './team-runtime-options.js';
import { openTestRuntime, until, type TestRuntime } from './team-runtime-test-support.js';

const run = promisify(execFile);

/** What the demo lead says once the team is shut down and deleted. */
export const DEMO_DONE = 'The team has been shut down and deleted.';

/**
 * The demo team in a fresh runtime: the person answers asks and plans (unless `options` says
 * otherwise), the demo's mode (acceptEdits) and rules, in-process teammates, and the demo's
 * repository written into the runtime's working directory and committed (a real git
 * repository, as `muster demo --run` makes it: alice works in a worktree of her own).
 */
export async function openDemoRuntime(
  options: Partial<TeamRuntimeOptions> = {},
): Promise<TestRuntime> {
  return openTestRuntime(demoTeamScript, demoTeamScript, {
    askPolicy: 'person',
    planApproval: 'person',
    permissionMode: 'acceptEdits',
    permissionRules: { allow: [...DEMO_TEAM_PERMISSION_RULES] },
    prepareCwd: writeDemoRepository,
    ...options,
  });
}

/** Writes the demo's repository into `cwd` and commits it, with the repository's own identity. */
async function writeDemoRepository(cwd: string): Promise<void> {
  for (const [file, content] of Object.entries(DEMO_TEAM_REPOSITORY)) {
    await mkdir(dirname(join(cwd, file)), { recursive: true });
    await writeFile(join(cwd, file), content);
  }
  const git = (...args: string[]) => run('git', args, { cwd });
  await git('init', '-q');
  await git('config', 'user.name', 'muster demo');
  await git('config', 'user.email', 'demo@muster.invalid');
  await git('add', '.');
  await git('commit', '-q', '-m', 'demo-strings: capitalize');
}

/** `git` in `cwd`, its output trimmed. */
export async function gitIn(cwd: string, ...args: string[]): Promise<string> {
  return (await run('git', args, { cwd })).stdout.trim();
}

/** The text blocks of every message `agentName`'s model answered with, in order. */
export function textsOf(events: readonly TeamEvent[], agentName: string): string[] {
  return events.flatMap((event) =>
    event.type === 'agent' &&
    event.agentName === agentName &&
    event.event.type === 'assistant_message'
      ? event.event.message.content.flatMap((block) => (block.type === 'text' ? [block.text] : []))
      : [],
  );
}

/** Waits until `agentName` said something containing `fragment`; returns that text. */
export function untilSaid(
  events: readonly TeamEvent[],
  agentName: string,
  fragment: string,
  timeoutMs = 30_000,
): Promise<string> {
  return until(
    `${agentName} to say "${fragment}"`,
    () => textsOf(events, agentName).find((value) => value.includes(fragment)),
    timeoutMs,
  );
}

/** Waits until the lead has deleted the team and every teammate has ended. */
export async function untilDone(demo: TestRuntime): Promise<void> {
  await untilSaid(demo.events, 'team-lead', DEMO_DONE);
  await until('every teammate to end', () =>
    demo.runtime.members().every((member) => !member.alive) ? true : undefined,
  );
}

/** The spawns of the run: name and agent type, in order. */
export function spawnsOf(events: readonly TeamEvent[]): string[][] {
  return events.flatMap((event) =>
    event.type === 'spawn' && event.path === 'teammate' ? [[event.agentName, event.agentType]] : [],
  );
}

/** Runs the repository's tests (`node --test`) and returns their output. */
export async function repositoryTests(cwd: string): Promise<string> {
  const { stdout } = await run(process.execPath, ['--test'], { cwd });
  return stdout;
}
