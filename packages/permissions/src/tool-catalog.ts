/**
 * What the decision function knows about tools by name. Anything not listed here is an
 * ordinary tool: it is governed by rules and modes, and its path (if any) is read from the
 * usual input fields.
 */

/** Tools a lead in `delegate` mode may still use: team coordination and the task list. */
export const DELEGATE_MODE_TOOLS: ReadonlySet<string> = new Set([
  'TeamCreate',
  'TeamDelete',
  'SendMessage',
  'TaskCreate',
  'TaskGet',
  'TaskUpdate',
  'TaskList',
  'Task',
]);

/**
 * Tools a `plan`-mode agent may use besides read-only calls and writing its plan file: they
 * touch the team's messages and task list, never the project. Spawning (`Task`) and creating
 * or deleting teams are not among them.
 */
export const PLAN_MODE_COORDINATION_TOOLS: ReadonlySet<string> = new Set([
  'SendMessage',
  'TaskCreate',
  'TaskGet',
  'TaskUpdate',
  'TaskList',
  'ExitPlanMode',
]);

/** Tools that change files. An `Edit` rule covers all of them (as in Claude Code). */
export const FILE_EDIT_TOOLS: ReadonlySet<string> = new Set([
  'Edit',
  'Write',
  'MultiEdit',
  'NotebookEdit',
]);

/** Tools that read files. A `Read` rule covers all of them (as in Claude Code). */
export const FILE_READ_TOOLS: ReadonlySet<string> = new Set([
  'Read',
  'Glob',
  'Grep',
  'LS',
  'NotebookRead',
]);

/** Tools whose rule specifier is a path glob. */
export function isPathTool(toolName: string): boolean {
  return FILE_EDIT_TOOLS.has(toolName) || FILE_READ_TOOLS.has(toolName);
}

/** Tools that run shell commands; their rule specifier is a command prefix. */
export function isShellTool(toolName: string): boolean {
  return toolName === 'Bash';
}

/**
 * True when a rule written for `ruleToolName` applies to a call of `callToolName`:
 * the same name; `Edit` for every file-editing tool; `Read` for every file-reading tool;
 * an MCP server name (`mcp__github`) or server wildcard (`mcp__github__*`) for its tools.
 */
export function ruleToolMatches(ruleToolName: string, callToolName: string): boolean {
  if (ruleToolName === callToolName) return true;
  if (ruleToolName === 'Edit' && FILE_EDIT_TOOLS.has(callToolName)) return true;
  if (ruleToolName === 'Read' && FILE_READ_TOOLS.has(callToolName)) return true;
  if (ruleToolName.startsWith('mcp__')) {
    const server = ruleToolName.endsWith('__*') ? ruleToolName.slice(0, -3) : ruleToolName;
    if (server.split('__').length === 2 && callToolName.startsWith(`${server}__`)) return true;
  }
  return false;
}

/** Input fields that hold the file or directory a tool works on, in the order looked at. */
export const PATH_INPUT_FIELDS = ['file_path', 'notebook_path', 'path'] as const;

/**
 * The paths a call works on, as given (not yet normalized). An absolute `Glob` pattern
 * counts with its directory part (`/etc/*.conf` → `/etc/`). Tools that search a directory
 * (`Glob`, `Grep`, `LS`) without a `path` work on the working directory: `'.'`.
 */
export function pathsOfCall(toolName: string, input: Record<string, unknown>): string[] {
  const paths: string[] = [];
  for (const field of PATH_INPUT_FIELDS) {
    const value = input[field];
    if (typeof value === 'string' && value !== '') paths.push(value);
  }
  const pattern = input.pattern;
  if (toolName === 'Glob' && typeof pattern === 'string' && /^[/~]/.test(pattern)) {
    const firstGlob = pattern.search(/[*?[{]/);
    const literal = firstGlob === -1 ? pattern : pattern.slice(0, firstGlob);
    const directory = literal.slice(0, literal.lastIndexOf('/') + 1) || literal;
    paths.push(directory === '' ? '/' : directory);
  }
  if (paths.length === 0 && (toolName === 'Glob' || toolName === 'Grep' || toolName === 'LS')) {
    paths.push('.');
  }
  return paths;
}
