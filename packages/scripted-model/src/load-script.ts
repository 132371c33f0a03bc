/**
 * Loads a script: a built-in name (`demo-team`) or a plain ESM module whose default export is
 * a Script `(request, context) => Reply | Promise<Reply>`. Every failure is a clear error.
 */
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { demoTeamScript } from './scripts/demo-team.js';
import type { Script } from './types.js';

/** The scripts shipped with the package, by the name `loadScript` and the CLI accept. */
export const BUILT_IN_SCRIPTS: Readonly<Record<string, Script>> = Object.freeze({
  'demo-team': demoTeamScript,
});

/** Thrown by `loadScript` when a script cannot be used; the message names the file and the fix. */
export class ScriptLoadError extends Error {
  /** What went wrong. */
  readonly code: 'NOT_FOUND' | 'IMPORT_FAILED' | 'NO_DEFAULT_EXPORT' | 'NOT_A_FUNCTION';

  /** Creates the error. */
  constructor(code: ScriptLoadError['code'], message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ScriptLoadError';
    this.code = code;
  }
}

/**
 * Loads a Script. `nameOrPath` is a built-in name (see BUILT_IN_SCRIPTS) or a path to an ESM
 * module (relative paths resolve against `baseDirectory`, default the current directory).
 * Rejects with a ScriptLoadError when the file is missing, throws at import, has no default
 * export, or its default export is not a function.
 */
export async function loadScript(
  nameOrPath: string,
  baseDirectory: string = process.cwd(),
): Promise<Script> {
  if (typeof nameOrPath !== 'string' || nameOrPath.trim() === '') {
    throw new ScriptLoadError(
      'NOT_FOUND',
      `loadScript: expected a script path or a built-in name (${Object.keys(BUILT_IN_SCRIPTS).join(', ')})`,
    );
  }
  const builtIn = Object.hasOwn(BUILT_IN_SCRIPTS, nameOrPath)
    ? BUILT_IN_SCRIPTS[nameOrPath]
    : undefined;
  if (builtIn !== undefined) return builtIn;
  const path = resolve(baseDirectory, nameOrPath);
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new Error('not a file');
  } catch {
    throw new ScriptLoadError(
      'NOT_FOUND',
      `Script not found: ${path} is not a file. Pass a path to an ESM module (.mjs or .js in a "type": "module" package) or a built-in name: ${Object.keys(BUILT_IN_SCRIPTS).join(', ')}.`,
    );
  }
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  } catch (error) {
    throw new ScriptLoadError(
      'IMPORT_FAILED',
      `Script ${path} failed to load: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  if (!('default' in module) || module.default === undefined) {
    const names = Object.keys(module);
    throw new ScriptLoadError(
      'NO_DEFAULT_EXPORT',
      `Script ${path} has no default export${names.length > 0 ? ` (it exports ${names.join(', ')})` : ''}. Add \`export default function script(request, context) { … }\`.`,
    );
  }
  if (typeof module.default !== 'function') {
    throw new ScriptLoadError(
      'NOT_A_FUNCTION',
      `Script ${path}: its default export is ${module.default === null ? 'null' : typeof module.default}, not a function. Export \`default function script(request, context) { return text('…'); }\`.`,
    );
  }
  return module.default as Script;
}
