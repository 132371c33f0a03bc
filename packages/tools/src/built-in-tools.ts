// The file, search and shell tools of an agent, created together in the order Claude Code
// 2.1.45 offered them to a teammate (Bash, Glob, Grep, Read, Edit, Write). Team, task and
// message tools need a team session and come from `createTeamTools`.
import type { AnyTool } from '@muster/query';
import { createBashTool, type BashToolOptions } from './bash-tool.js';
import { createFileTools } from './file-tools.js';
import type { ReadToolOptions } from './read-tool.js';
import type { FileChangeToolOptions } from './write-tool.js';
import { createGlobTool, type GlobToolOptions } from './glob-tool.js';
import { createGrepTool, type GrepToolOptions } from './grep-tool.js';

/** Options of `createBuiltInTools`, one entry per tool family. */
export interface BuiltInToolsOptions {
  /** Read's limits. */
  read?: ReadToolOptions;
  /** Write's and Edit's options. */
  change?: FileChangeToolOptions;
  /** Glob's limits. */
  glob?: GlobToolOptions;
  /** Grep's engine choice and limits. */
  grep?: GrepToolOptions;
  /** Bash's timeouts and output limits. */
  bash?: BashToolOptions;
}

/** The names `createBuiltInTools` returns, in order. */
export const BUILT_IN_TOOL_NAMES = ['Bash', 'Glob', 'Grep', 'Read', 'Edit', 'Write'] as const;

/**
 * Bash, Glob, Grep, Read, Edit and Write, ready for `createAgent({ tools })`. Read, Edit and
 * Write share the agent's file read state (an Edit or a Write of an existing file needs a
 * Read of it first, in the same agent).
 */
export function createBuiltInTools(options: BuiltInToolsOptions = {}): AnyTool[] {
  const files = createFileTools({
    ...(options.read === undefined ? {} : { read: options.read }),
    ...(options.change === undefined ? {} : { change: options.change }),
  });
  return [
    createBashTool(options.bash),
    createGlobTool(options.glob),
    createGrepTool(options.grep),
    files.read,
    files.edit,
    files.write,
  ];
}
