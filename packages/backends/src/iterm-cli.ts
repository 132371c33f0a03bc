// The `it2` CLI (PyPI `it2`, a wrapper over iTerm2's Python API) as the iTerm2 backend calls
// it, and the launch script a member's pane runs. runtime.md §6.1: `session list` is the
// health check (`--version` answers even when the API is off), `session split -v|-h [-s id]`
// prints `Created new pane: <id>`, `session run -s id <text>` types a line into the new
// pane's shell, `session close -f -s id` closes a pane without iTerm2's confirmation prompt.
import { execFile } from 'node:child_process';

/** What one `it2` call gave. `missing`: the program could not be started (not on the PATH). */
export interface It2Result {
  code: number | null;
  stdout: string;
  stderr: string;
  missing: boolean;
  timedOut: boolean;
}

/** Runs `it2 <args>` with a deadline; never throws. */
export function runIt2(
  it2Path: string,
  args: readonly string[],
  options: { environment: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<It2Result> {
  return new Promise((resolve) => {
    execFile(
      it2Path,
      [...args],
      { env: options.environment, timeout: options.timeoutMs, killSignal: 'SIGKILL' },
      (error, stdout, stderr) => {
        const failure = error as (NodeJS.ErrnoException & { killed?: boolean }) | null;
        const missing = failure?.code === 'ENOENT' || failure?.code === 'EACCES';
        const code = failure === null ? 0 : typeof failure.code === 'number' ? failure.code : null;
        resolve({
          code: missing ? null : code,
          stdout: String(stdout),
          stderr: missing ? `${failure?.message ?? ''}` : String(stderr),
          missing,
          timedOut: failure?.killed === true && !missing,
        });
      },
    );
  });
}

/** First non-empty line of an `it2` failure, for messages. */
export function firstLine(result: It2Result): string {
  const text = `${result.stderr}\n${result.stdout}`;
  const line = text.split('\n').find((candidate) => candidate.trim() !== '');
  if (result.timedOut) return 'it2 did not answer in time';
  return line?.trim() ?? `it2 exited with code ${String(result.code)}`;
}

/** Whether an `it2` failure says the Python API is off or unreachable. */
export function looksLikeApiDisabled(result: It2Result): boolean {
  return /api|python|connection refused|websocket|cookie/i.test(
    `${result.stderr} ${result.stdout}`,
  );
}

/** The session id in `Created new pane: <id>`, or undefined. */
export function parseCreatedPaneId(stdout: string): string | undefined {
  const match = /Created new pane:\s*(\S+)/.exec(stdout);
  return match?.[1];
}

/** Whether `session list` output names `sessionId` (a whole word, never a substring). */
export function sessionListed(listOutput: string, sessionId: string): boolean {
  return listOutput.split(/[\s,;|()[\]{}"']+/).includes(sessionId);
}

/** The lead's own session id: the part of `ITERM_SESSION_ID` (`w0t0p0:<UUID>`) after the colon. */
export function leaderSessionIdFrom(
  environment: Readonly<Record<string, string | undefined>>,
): string | undefined {
  const raw = environment.ITERM_SESSION_ID;
  if (raw === undefined) return undefined;
  const colon = raw.indexOf(':');
  const id = colon === -1 ? '' : raw.slice(colon + 1).trim();
  return id === '' ? undefined : id;
}

/** POSIX shell single-quoting: the value reaches the program byte for byte. */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/** What the pane's launch script needs. */
export interface LaunchScriptInput {
  agentId: string;
  cwd: string;
  environment: Readonly<Record<string, string>>;
  argv: readonly string[];
  /** Written as `<pid> <pgid>` once the script runs. */
  pidFile: string;
  /** Written with the command's exit status once it ends. */
  exitFile: string;
}

/**
 * A `/bin/sh` script that enters the member's cwd, exports its environment, runs its argv
 * directly (no shell parsing of the member's arguments: each is single-quoted) and records
 * its pid and exit status in files the backend watches. The pane's own shell only ever sees
 * `/bin/sh '<script>'`, whatever shell (bash, zsh, fish) it is.
 */
export function launchScript(input: LaunchScriptInput): string {
  const exports = Object.entries(input.environment).map(([name, value]) => {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
      throw new Error(`environment variable name ${JSON.stringify(name)} is not a valid name`);
    }
    return `export ${name}=${shellQuote(value)}`;
  });
  const record = (file: string, value: string) =>
    `printf '%s\\n' ${value} > ${shellQuote(`${file}.tmp`)} && mv -f ${shellQuote(`${file}.tmp`)} ${shellQuote(file)}`;
  return [
    '#!/bin/sh',
    `# muster: launches ${input.agentId.replaceAll('\n', ' ')} in this iTerm2 pane (generated; removed when the lead closes its iTerm2 backend).`,
    `muster_pgid=$(ps -o pgid= -p $$ 2>/dev/null | tr -d ' ')`,
    record(input.pidFile, '"$$ ${muster_pgid:-$$}"'),
    `cd ${shellQuote(input.cwd)} || { ${record(input.exitFile, '126')}; exit 126; }`,
    ...exports,
    input.argv.map(shellQuote).join(' '),
    'muster_status=$?',
    record(input.exitFile, '"$muster_status"'),
    'exit "$muster_status"',
    '',
  ].join('\n');
}
