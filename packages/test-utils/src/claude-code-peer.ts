/**
 * The real Claude Code 2.1.45 CLI as a peer of the scripted model (test support for
 * `@muster/scripted-model` and `@muster/backends`): find the CLI, give it a throwaway HOME, run it headless against a scripted
 * model's URL with a hard time limit, and kill its whole process tree when that limit passes.
 *
 * The CLI is the pinned devDependency `@anthropic-ai/claude-code` (a plain Node bundle,
 * `cli.js`). Without it (a partial install), `npm pack` fetches it once into a private per-user
 * folder (`<tmpdir>/muster-<uid>/claude-code-<version>`, 0700, refused unless owned by this uid
 * with no group/other write bit; the tarball's sha512 is checked against the registry's
 * `dist.integrity` before it is extracted); when the registry cannot be reached either, {@link findClaudeCode} says why so
 * the test can skip visibly.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  assertPrivateFolder,
  packVerified,
  privateCacheFolder,
  userCacheRoot,
} from './claude-code-cache.js';

/** The Claude Code version this package is checked against. */
export const CLAUDE_CODE_VERSION = '2.1.45';

/**
 * Where `npm pack` caches the CLI when the devDependency is not installed: a per-user folder
 * (`<tmpdir>/muster-<uid>/claude-code-<version>`), used only while private to this uid.
 */
export const CLAUDE_CODE_CACHE_FOLDER = join(userCacheRoot(), `claude-code-${CLAUDE_CODE_VERSION}`);

/** The CLI to run, or why there is none. */
export type ClaudeCodeLocation =
  { cli: string; source: 'devDependency' | 'npm pack cache' } | { unavailable: string };

function versionAt(packageFolder: string): string | undefined {
  try {
    const manifest = JSON.parse(readFileSync(join(packageFolder, 'package.json'), 'utf8')) as {
      version?: unknown;
    };
    return typeof manifest.version === 'string' ? manifest.version : undefined;
  } catch {
    return undefined;
  }
}

function fromDevDependency(): string | undefined {
  try {
    const manifest = createRequire(import.meta.url).resolve(
      '@anthropic-ai/claude-code/package.json',
    );
    const folder = dirname(manifest);
    const cli = join(folder, 'cli.js');
    return versionAt(folder) === CLAUDE_CODE_VERSION && existsSync(cli) ? cli : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Finds Claude Code {@link CLAUDE_CODE_VERSION}: the devDependency, else the `npm pack` cache
 * (filled on first use, bounded by `timeoutMs`). Never throws: a failure is `{ unavailable }`.
 */
export async function findClaudeCode(timeoutMs = 120_000): Promise<ClaudeCodeLocation> {
  const installed = fromDevDependency();
  if (installed !== undefined) return { cli: installed, source: 'devDependency' };
  try {
    const folder = await privateCacheFolder(`claude-code-${CLAUDE_CODE_VERSION}`);
    const packageFolder = join(folder, 'package');
    const cached = join(packageFolder, 'cli.js');
    if (versionAt(packageFolder) === CLAUDE_CODE_VERSION && existsSync(cached)) {
      assertPrivateFolder(packageFolder);
      return { cli: cached, source: 'npm pack cache' };
    }
    try {
      await packVerified('@anthropic-ai/claude-code', CLAUDE_CODE_VERSION, folder, timeoutMs);
    } catch (error) {
      return {
        unavailable: `@anthropic-ai/claude-code@${CLAUDE_CODE_VERSION} is not installed and the npm registry could not be reached or gave a bad tarball (${(error as Error).message.slice(0, 300)})`,
      };
    }
    return existsSync(cached)
      ? { cli: cached, source: 'npm pack cache' }
      : { unavailable: `npm pack gave no ${cached}` };
  } catch (error) {
    return { unavailable: (error as Error).message };
  }
}

/** The native Claude Code version muster's 2.1.330 dialect is checked against. */
export const CLAUDE_CODE_NATIVE_VERSION = '2.1.330';

/**
 * Finds the native Claude Code executable of `version` (2.1.330 and later ship one per platform,
 * `@anthropic-ai/claude-code-<platform>-<arch>`, instead of a Node bundle): a private per-user
 * folder (see {@link CLAUDE_CODE_CACHE_FOLDER}; tarball integrity checked), filled on first use by `npm pack` (about 175 MB, bounded by `timeoutMs`). Never
 * throws: an unsupported platform or an unreachable registry is `{ unavailable }`.
 */
export async function findNativeClaudeCode(
  version = CLAUDE_CODE_NATIVE_VERSION,
  timeoutMs = 300_000,
): Promise<ClaudeCodeLocation> {
  if (process.platform !== 'linux' && process.platform !== 'darwin')
    return { unavailable: `no native Claude Code build is published for ${process.platform}` };
  const packageName = `@anthropic-ai/claude-code-${process.platform}-${process.arch}`;
  try {
    const cacheFolder = await privateCacheFolder(`claude-code-${version}`);
    const packageFolder = join(cacheFolder, 'package');
    const executable = join(packageFolder, 'claude');
    if (versionAt(packageFolder) === version && existsSync(executable)) {
      assertPrivateFolder(packageFolder);
      return { cli: executable, source: 'npm pack cache' };
    }
    try {
      await packVerified(packageName, version, cacheFolder, timeoutMs);
    } catch (error) {
      return {
        unavailable: `${packageName}@${version} could not be fetched and checked with npm pack (${(error as Error).message.slice(0, 300)})`,
      };
    }
    return versionAt(packageFolder) === version && existsSync(executable)
      ? { cli: executable, source: 'npm pack cache' }
      : { unavailable: `npm pack of ${packageName}@${version} gave no ${executable}` };
  } catch (error) {
    return { unavailable: (error as Error).message };
  }
}

/** A throwaway home for one run: nothing outside `root` is read or written by the CLI's config. */
export interface ClaudeCodeHome {
  /** The temp folder holding everything below. */
  root: string;
  /** `HOME`. */
  home: string;
  /** `CLAUDE_CONFIG_DIR` (`<home>/.claude`): teams/ and tasks/ appear here. */
  configDirectory: string;
  /** The working directory the CLI runs in. */
  workDirectory: string;
  /** `TMPDIR`, so the CLI's temp files go away with `root`. */
  temporaryDirectory: string;
  /** Removes `root`. */
  dispose(): Promise<void>;
}

/** Creates a {@link ClaudeCodeHome} under the OS temp folder. */
export async function createClaudeCodeHome(prefix = 'claude-code-peer-'): Promise<ClaudeCodeHome> {
  const root = await mkdtemp(join(tmpdir(), prefix));
  const home = join(root, 'home');
  const configDirectory = join(home, '.claude');
  const workDirectory = join(root, 'work');
  const temporaryDirectory = join(root, 'tmp');
  for (const folder of [configDirectory, workDirectory, temporaryDirectory])
    await mkdir(folder, { recursive: true });
  return {
    root,
    home,
    configDirectory,
    workDirectory,
    temporaryDirectory,
    dispose: () => rm(root, { recursive: true, force: true, maxRetries: 3 }),
  };
}

/**
 * The environment of a headless run, exactly as running Claude Code against a local Messages API
 * needs it: only PATH is inherited (no real key, no real config), teams and tasks on, telemetry,
 * non-essential traffic and the auto-updater off, `IS_SANDBOX=1`.
 */
export function claudeCodeEnvironment(home: ClaudeCodeHome, baseUrl: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home.home,
    CLAUDE_CONFIG_DIR: home.configDirectory,
    TMPDIR: home.temporaryDirectory,
    ANTHROPIC_BASE_URL: baseUrl,
    ANTHROPIC_API_KEY: 'sk-ant-scripted-test-double',
    CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS: '1',
    CLAUDE_CODE_ENABLE_TASKS: '1',
    DISABLE_TELEMETRY: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    IS_SANDBOX: '1',
  };
}

/** Options of {@link runClaudeCode}. */
export interface RunClaudeCodeOptions {
  /** Path of `cli.js`. */
  cli: string;
  /** The scripted model's URL (`ANTHROPIC_BASE_URL`). */
  baseUrl: string;
  /** The throwaway home. */
  home: ClaudeCodeHome;
  /** The `-p` prompt. */
  prompt: string;
  /** Hard limit: past it the whole process tree gets SIGKILL and `timedOut` is true. */
  timeoutMs: number;
  /** Flags after the defaults (`--permission-mode default --teammate-mode in-process --output-format stream-json --verbose`). */
  extraArguments?: string[];
}

/** What one headless run did. */
export interface ClaudeCodeRun {
  /** The CLI's process id, also its process group id (undefined if it never started). */
  pid: number | undefined;
  /** Exit code (null when killed by a signal). */
  exitCode: number | null;
  /** The signal that ended it, if any. */
  signal: NodeJS.Signals | null;
  /** Whether the hard limit killed it. */
  timedOut: boolean;
  /** Wall time in milliseconds. */
  durationMs: number;
  /** The stream-json events on stdout, in order. */
  events: Record<string, unknown>[];
  /** Everything on stderr (for failure messages). */
  stderr: string;
}

function killTree(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL'); // the child leads its own process group (detached)
  } catch {
    // already gone
  }
}

function parseEvents(stdout: string): Record<string, unknown>[] {
  return stdout.split('\n').flatMap((line) => {
    if (!line.startsWith('{')) return [];
    try {
      return [JSON.parse(line) as Record<string, unknown>];
    } catch {
      return [];
    }
  });
}

/**
 * Runs `node cli.js -p <prompt>` headless in its own process group; resolves when it exits or,
 * after `timeoutMs`, when its killed tree is gone. Also kills the tree if this process exits first.
 */
export function runClaudeCode(options: RunClaudeCodeOptions): Promise<ClaudeCodeRun> {
  const started = Date.now();
  const child = spawn(
    process.execPath,
    [
      options.cli,
      '-p',
      options.prompt,
      '--permission-mode',
      'default',
      '--teammate-mode',
      'in-process',
      '--output-format',
      'stream-json',
      '--verbose',
      ...(options.extraArguments ?? []),
    ],
    {
      cwd: options.home.workDirectory,
      env: claudeCodeEnvironment(options.home, options.baseUrl),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    },
  );
  const onParentExit = (): void => killTree(child.pid);
  process.once('exit', onParentExit);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killTree(child.pid);
  }, options.timeoutMs);
  return new Promise((resolve) => {
    let exitCode: number | null = null;
    let signal: NodeJS.Signals | null = null;
    const finish = (): void => {
      clearTimeout(timer);
      process.removeListener('exit', onParentExit);
      resolve({
        pid: child.pid,
        exitCode,
        signal,
        timedOut,
        durationMs: Date.now() - started,
        events: parseEvents(stdout),
        stderr: stderr + (timedOut ? `\n[killed after the ${options.timeoutMs} ms limit]` : ''),
      });
    };
    child.once('error', (error) => {
      stderr += `\n[spawn failed: ${error.message}]`;
      finish();
    });
    child.once('exit', (code, exitSignal) => {
      exitCode = code;
      signal = exitSignal;
      killTree(child.pid); // stray grandchildren (shells) go too, so the pipes close
    });
    child.once('close', finish);
  });
}

/** What a team folder held at one moment (read synchronously, so it is the state a request saw). */
export interface TeamSnapshot {
  /** `teams/<team>/config.json` parsed; `undefined` when absent or being rewritten. */
  config: Record<string, unknown> | undefined;
  /** Each `inboxes/<name>.json`, parsed (an unreadable file reads as []). */
  inboxes: Record<string, Record<string, unknown>[]>;
  /** Whether `teams/<team>` exists at all. */
  exists: boolean;
}

function readJsonSync(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as unknown;
  } catch {
    return undefined;
  }
}

function jsonFilesIn(folder: string): string[] {
  try {
    return readdirSync(folder)
      .filter((name) => name.endsWith('.json'))
      .sort();
  } catch {
    return []; // absent, or removed meanwhile (TeamDelete)
  }
}

/** Reads `<configDirectory>/teams/<team>` now: config and every inbox. */
export function snapshotTeam(configDirectory: string, team: string): TeamSnapshot {
  const folder = join(configDirectory, 'teams', team);
  if (!existsSync(folder)) return { config: undefined, inboxes: {}, exists: false };
  const config = readJsonSync(join(folder, 'config.json'));
  const inboxes: TeamSnapshot['inboxes'] = {};
  for (const name of jsonFilesIn(join(folder, 'inboxes'))) {
    const entries = readJsonSync(join(folder, 'inboxes', name));
    inboxes[name.slice(0, -'.json'.length)] = Array.isArray(entries)
      ? (entries as Record<string, unknown>[])
      : [];
  }
  return {
    config:
      config !== null && typeof config === 'object'
        ? (config as Record<string, unknown>)
        : undefined,
    inboxes,
    exists: true,
  };
}
