// `muster run [prompt]`: a lead's team session on the model the environment names
// (ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN, ANTHROPIC_BASE_URL), in the current (or --cwd)
// directory: the interactive app in a terminal, or headless with -p. The app (ink, react) is
// loaded only when it runs.
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { createModelClient, type ModelClient } from '@muster/query';
import { CliError } from '../cli-error.js';
import { startInteractive } from '../interactive/start-interactive.js';
import type { CommandContext } from '../context.js';
import type { HeadlessFlags } from '../run/headless-flags.js';
import { checkPermissionRules, runTeamHeadless } from '../run/headless-run.js';

/** The one-line error for a missing key: how to set one, or how to run the demo instead. */
export const MISSING_KEY_MESSAGE =
  'No model key: set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN; ANTHROPIC_BASE_URL for another server that speaks the Messages API), or try the offline scripted demo with muster demo --run (add -p to run it headless).';

/** The model client for the environment's key and base URL, as the SDK reads them. */
export function modelClientFromEnvironment(
  environment: Record<string, string | undefined>,
): ModelClient {
  const apiKey = environment.ANTHROPIC_API_KEY?.trim() || undefined;
  const authToken = environment.ANTHROPIC_AUTH_TOKEN?.trim() || undefined;
  if (apiKey === undefined && authToken === undefined) {
    throw new CliError({ code: 'NO_MODEL_KEY', message: MISSING_KEY_MESSAGE });
  }
  const baseURL = environment.ANTHROPIC_BASE_URL?.trim() || undefined;
  return createModelClient({
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(baseURL === undefined ? {} : { baseURL }),
  });
}

/** `--cwd` (default: the current directory) as an absolute path to a folder that exists. */
export async function resolveWorkingDirectory(given: string | undefined): Promise<string> {
  const cwd = path.resolve(given ?? process.cwd());
  const info = await stat(cwd).catch(() => undefined);
  if (info?.isDirectory() !== true) {
    throw new CliError({
      code: 'USAGE',
      message: `--cwd ${JSON.stringify(given ?? cwd)} is not a folder that exists: give the project folder the lead should work in.`,
      details: { option: '--cwd', value: given ?? cwd },
    });
  }
  return cwd;
}

/** The interactive app needs a terminal on stdin and stdout; otherwise a usage error saying to use -p. */
export function requireTerminal(
  context: CommandContext,
  command: string,
  stdin: { isTTY?: boolean } = process.stdin,
): void {
  const missing = [
    ...(stdin.isTTY === true ? [] : ['stdin']),
    ...(context.streams.stdout.isTTY === true ? [] : ['stdout']),
  ];
  if (missing.length > 0) {
    throw new CliError({
      code: 'USAGE',
      message: `${command} without -p is interactive and needs a terminal, but ${missing.join(' and ')} ${missing.length === 1 ? 'is' : 'are'} not one: add -p to run it headless (${command} -p${command === 'muster run' ? ' "<prompt>"' : ''}).`,
      details: { option: '-p', notTerminal: missing },
    });
  }
}

/** `muster run [prompt] [flags]`: the interactive app, or headless with `-p "<prompt>"`. */
export async function runCommand(
  context: CommandContext,
  prompt: string | undefined,
  flags: HeadlessFlags,
): Promise<number> {
  if (flags.print !== true) {
    checkPermissionRules(flags);
    const cwd = await resolveWorkingDirectory(flags.cwd);
    const client = modelClientFromEnvironment(context.environment);
    requireTerminal(context, 'muster run');
    return startInteractive({
      context,
      flags,
      cwd,
      root: context.root,
      client,
      ...(prompt === undefined || prompt.trim() === '' ? {} : { prompt }),
    });
  }
  if (prompt === undefined || prompt.trim() === '') {
    throw new CliError({
      code: 'USAGE',
      message: 'Give the lead a prompt: muster run -p "Split the refactor among three teammates".',
    });
  }
  checkPermissionRules(flags);
  const cwd = await resolveWorkingDirectory(flags.cwd);
  const client = modelClientFromEnvironment(context.environment);
  return runTeamHeadless({ context, prompt, flags, cwd, root: context.root, client });
}
