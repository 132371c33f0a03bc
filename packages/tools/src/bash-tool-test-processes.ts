// Test support for the Bash tool (not exported from index.ts): finds live processes by a
// unique token in their command line through /proc — independently of the marker variable
// the tool itself uses — and kills them so a failing test leaves nothing behind; and sets up a
// Bash tool on a fresh working directory with the ToolContext of test-support.ts.
import { readdirSync, readFileSync, realpathSync } from 'node:fs';
import { makeTempDirectory } from '@muster/test-utils';
import { afterEach } from 'vitest';
import { backgroundShells } from './background-shells.js';
import { createBashTool, type BashToolOptions } from './bash-tool.js';
import { createTestToolContext } from './test-support.js';

/** A unique `sleep` duration (seconds, about 5 minutes) whose text identifies the processes of one test. */
export function uniqueSleepSeconds(): string {
  const fraction = String(Math.floor(Math.random() * 1e6)).padStart(6, '0');
  return `${300 + Math.floor(Math.random() * 600)}.${fraction}`;
}

/** Live (not zombie) processes whose command line contains `token`, other than this process. */
export function processesWith(token: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const commandLine = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (!commandLine.includes(token)) continue;
      const status = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const state = status.slice(status.lastIndexOf(')') + 2, status.lastIndexOf(')') + 3);
      if (state !== 'Z' && state !== 'X') found.push(Number(entry));
    } catch {
      // The process ended while being read.
    }
  }
  return found;
}

/** Waits (bounded) until `check` holds; returns whether it did. */
export async function eventually(check: () => boolean, timeoutMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return check();
}

/** SIGKILLs every process whose command line contains `token` (test clean-up). */
export function killProcessesWith(token: string): void {
  for (const processId of processesWith(token)) {
    try {
      process.kill(processId, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

/**
 * For one test file: returns `token()`, which gives a fresh {@link uniqueSleepSeconds} token;
 * after each test every process still carrying one of them is SIGKILLed.
 */
export function trackSleepTokens(): () => string {
  const tokens: string[] = [];
  afterEach(() => {
    for (const token of tokens.splice(0)) killProcessesWith(token);
  });
  return () => {
    const token = uniqueSleepSeconds();
    tokens.push(token);
    return token;
  };
}

/**
 * A Bash tool (`outputRoot` a fresh temporary folder, then `options`) and a test ToolContext in
 * a fresh working directory (real path, folder name starting with `prefix`), with the agent's
 * background shells.
 */
export async function setUpBashTool(options: BashToolOptions = {}, prefix = 'muster-bash-') {
  const cwd = realpathSync(await makeTempDirectory(prefix));
  const outputRoot = await makeTempDirectory('muster-bash-output-');
  const test = createTestToolContext({ cwd });
  const tool = createBashTool({ outputRoot, ...options });
  return {
    cwd,
    outputRoot,
    test,
    tool,
    context: test.context,
    shells: backgroundShells(test.context),
  };
}
