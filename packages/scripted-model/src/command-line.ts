import { resolve } from 'node:path';
import { startScriptedModel, type ScriptedModelServer } from './http-transport.js';
import { BUILT_IN_SCRIPTS, loadScript, ScriptLoadError } from './load-script.js';
import { createPromptCache } from './prompt-cache.js';
import { createRequestLog, type RequestLog } from './request-log.js';
import type { Script } from './types.js';

/** What `muster-scripted-model` was asked to do. */
export interface CommandLineOptions {
  script: string;
  port: number;
  host: string;
  log?: string;
}

/** A command-line mistake: printed with the usage, exit code 2. */
export class CommandLineError extends Error {
  /** Creates the error; `message` says which flag was wrong and how. */
  constructor(message: string) {
    super(message);
    this.name = 'CommandLineError';
  }
}

/** The usage text of `muster-scripted-model`. */
export const USAGE = `usage: muster-scripted-model --script <file|demo-team> [--port <0-65535>] [--host <address>] [--log <file.jsonl>]

A scripted TEST DOUBLE of the Anthropic Messages API: every reply comes from the script (a module
whose default export is a function (request, context) => Reply), never from a model.
  --script <file>  the script module, or a built-in script name: demo-team (required)
  --port <n>       TCP port, 0 (default) picks a free one
  --host <addr>    interface to listen on (default 127.0.0.1)
  --log <file>     append one JSON line per request (hashes, usage, faults) to this file
Stop it with SIGTERM or SIGINT (Ctrl-C): every connection is closed and it exits 0.`;

/** Parses the arguments after `muster-scripted-model`; throws CommandLineError naming the problem. */
export function parseCommandLine(argumentList: readonly string[]): CommandLineOptions | 'help' {
  const values: Partial<Record<'script' | 'port' | 'host' | 'log', string>> = {};
  for (let index = 0; index < argumentList.length; index += 1) {
    const argument = argumentList[index] as string;
    if (argument === '--help' || argument === '-h') return 'help';
    const match = /^--(script|port|host|log)(?:=(.*))?$/.exec(argument);
    if (!match) throw new CommandLineError(`unknown argument ${JSON.stringify(argument)}`);
    const name = match[1] as 'script' | 'port' | 'host' | 'log';
    let value = match[2];
    if (value === undefined) {
      value = argumentList[index + 1];
      if (value === undefined || value.startsWith('--'))
        throw new CommandLineError(`--${name} needs a value`);
      index += 1;
    }
    if (values[name] !== undefined) throw new CommandLineError(`--${name} given twice`);
    values[name] = value;
  }
  if (!values.script) throw new CommandLineError('--script <file|demo-team> is required');
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!/^\d+$/.test(values.port ?? '0') || !Number.isInteger(port) || port > 65535) {
    throw new CommandLineError(
      `--port must be an integer from 0 to 65535, got ${JSON.stringify(values.port)}`,
    );
  }
  return {
    script: values.script,
    port,
    host: values.host ?? '127.0.0.1',
    ...(values.log !== undefined ? { log: values.log } : {}),
  };
}

/** Loads `--script`: a built-in name (`demo-team`) or an ESM module whose default export is a Script. */
export async function importScript(nameOrPath: string): Promise<Script> {
  try {
    return await loadScript(nameOrPath);
  } catch (error) {
    if (error instanceof ScriptLoadError)
      throw new CommandLineError(`cannot load the script: ${error.message}`);
    throw error;
  }
}

/** The start-up banner: says loudly that this is a test double, and where it listens. */
export function banner(url: string, options: CommandLineOptions): string {
  return [
    'muster-scripted-model: a scripted TEST DOUBLE of the Anthropic Messages API — replies come from a script, not a model.',
    `listening on ${url}`,
    `script: ${Object.hasOwn(BUILT_IN_SCRIPTS, options.script) ? `${options.script} (built in)` : resolve(options.script)}`,
    ...(options.log ? [`request log: ${resolve(options.log)}`] : []),
    `use it with: ANTHROPIC_BASE_URL=${url} ANTHROPIC_API_KEY=test`,
    '',
  ].join('\n');
}

/** Runs the CLI until SIGTERM or SIGINT; resolves with the exit code. */
export async function runCommandLine(
  argumentList: readonly string[],
  output: { stdout: (text: string) => void; stderr: (text: string) => void },
  loadScript: (file: string) => Promise<Script> = importScript,
): Promise<number> {
  let options: CommandLineOptions;
  let server: ScriptedModelServer | undefined;
  let log: RequestLog | undefined;
  try {
    const parsed = parseCommandLine(argumentList);
    if (parsed === 'help') {
      output.stdout(`${USAGE}\n`);
      return 0;
    }
    options = parsed;
    const script = await loadScript(options.script);
    log = createRequestLog(options.log ? { file: options.log } : {});
    server = await startScriptedModel({
      script,
      port: options.port,
      host: options.host,
      cache: createPromptCache(),
      log,
    });
  } catch (error) {
    await log?.close();
    if (error instanceof CommandLineError) {
      output.stderr(`muster-scripted-model: ${error.message}\n${USAGE}\n`);
      return 2;
    }
    output.stderr(`muster-scripted-model: ${(error as Error).message}\n`);
    return 1;
  }
  const running = server;
  const openLog = log;
  const exitCode = new Promise<number>((resolveExit) => {
    const stop = (signal: NodeJS.Signals): void => {
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
      output.stdout(`muster-scripted-model: ${signal}, closing every connection\n`);
      void running
        .close()
        .then(() => openLog.close())
        .then(() => resolveExit(0));
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  });
  // The banner comes only once the signal handlers are in place: whoever reads it may stop us at once.
  output.stdout(banner(server.url, options));
  return exitCode;
}
