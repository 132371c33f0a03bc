/**
 * Scanners for the little languages that allow rules often admit: sed scripts and awk
 * programs. They look for the commands that run programs or write files (sed `e`, `s///e`,
 * `w`, `W`; awk `system()`, pipes, output redirection, `@load`). When a sed script cannot
 * be read to the end it is reported too: what cannot be read cannot be vouched for.
 */

/** Reads a delimited part (`/re/`) from `start` (just after the delimiter); returns its end. */
function skipDelimited(script: string, start: number, delimiter: string): number {
  let index = start;
  while (index < script.length && script[index] !== delimiter) {
    if (script[index] === '\\') index += 1;
    else if (script[index] === '\n') return -1;
    index += 1;
  }
  return index < script.length ? index + 1 : -1;
}

/** Index of the end of the current line (or the script). */
function lineEnd(script: string, start: number): number {
  const newline = script.indexOf('\n', start);
  return newline === -1 ? script.length : newline;
}

/** The execute and write commands in a sed script; empty when there are none. */
export function dangerousSedScript(script: string): string[] {
  return scanSedScript(script).found;
}

/** The shell commands a sed script runs with its `e` command (`1e rm x` → `rm x`). */
export function sedScriptCommands(script: string): string[] {
  return scanSedScript(script).commands;
}

function scanSedScript(script: string): { found: string[]; commands: string[] } {
  const found: string[] = [];
  const commands: string[] = [];
  let index = 0;
  const unreadable = () => ({
    found: [`sed script ${JSON.stringify(script)} could not be read to the end`],
    commands,
  });
  while (index < script.length) {
    const character = script[index]!;
    if (/[\s;{}!]/.test(character)) {
      index += 1;
      continue;
    }
    if (character === '#') {
      index = lineEnd(script, index);
      continue;
    }
    // Addresses: numbers, $, ~steps, /regex/, \cregexc, and a comma between two of them.
    if (/[0-9$,~+]/.test(character)) {
      index += 1;
      continue;
    }
    if (character === '/' || character === '\\') {
      const delimiter = character === '/' ? '/' : script[index + 1]!;
      const end = skipDelimited(script, index + (character === '/' ? 1 : 2), delimiter);
      if (end === -1) return unreadable();
      index = end;
      while (/[IM]/.test(script[index] ?? '')) index += 1;
      continue;
    }
    index += 1;
    switch (character) {
      case 's':
      case 'y': {
        const delimiter = script[index];
        if (delimiter === undefined || delimiter === '\n' || delimiter === '\\')
          return unreadable();
        const middle = skipDelimited(script, index + 1, delimiter);
        const end = middle === -1 ? -1 : skipDelimited(script, middle, delimiter);
        if (end === -1) return unreadable();
        index = end;
        if (character === 's') {
          const flags = /^[gpiImMe0-9w]*/.exec(script.slice(index))![0];
          if (flags.includes('e')) found.push('sed s///e runs the pattern space as a command');
          if (flags.includes('w')) {
            found.push('sed s///w writes a file');
            index = lineEnd(script, index);
          } else index += flags.length;
        }
        break;
      }
      case 'e': {
        found.push('sed e runs a command');
        const end = lineEnd(script, index);
        const command = script.slice(index, end).trim();
        if (command !== '') commands.push(command);
        index = end;
        break;
      }
      case 'w':
      case 'W':
        found.push(`sed ${character} writes a file`);
        index = lineEnd(script, index);
        break;
      case 'a':
      case 'i':
      case 'c':
      case 'r':
      case 'R':
      case 'b':
      case 't':
      case 'T':
      case ':':
      case 'q':
      case 'Q':
      case 'l':
      case 'L':
      case 'v':
        // Text, file names and labels run to the end of the line (GNU); `;` ends labels.
        index = ['b', 't', 'T', 'q', 'Q', 'l', 'L', 'v'].includes(character)
          ? Math.min(
              lineEnd(script, index),
              (script.indexOf(';', index) + 1 || script.length + 1) - 1,
            )
          : lineEnd(script, index);
        break;
      default:
        if (!'=dDgGhHnNpPxzF'.includes(character)) return unreadable();
    }
  }
  return { found, commands };
}

/** Removes string literals and (likely) regular expressions from an awk program. */
function stripAwkLiterals(program: string): string {
  let out = '';
  let index = 0;
  let previous = '';
  while (index < program.length) {
    const character = program[index]!;
    if (character === '"') {
      index += 1;
      while (index < program.length && program[index] !== '"')
        index += program[index] === '\\' ? 2 : 1;
      index += 1;
      out += '""';
    } else if (character === '/' && /^$|[(,~!&|;{}\n=]$/.test(previous)) {
      index += 1;
      while (index < program.length && program[index] !== '/' && program[index] !== '\n') {
        index += program[index] === '\\' ? 2 : 1;
      }
      index += 1;
      out += '//';
    } else if (character === '#') {
      index = lineEnd(program, index);
    } else {
      out += character;
      index += 1;
    }
    if (!/\s/.test(character)) previous = out.at(-1) ?? '';
  }
  return out;
}

/** The execute and write vectors in an awk program; empty when there are none. */
export function dangerousAwkProgram(program: string): string[] {
  const found: string[] = [];
  const code = stripAwkLiterals(program);
  if (/\bsystem\s*\(/.test(code)) found.push('awk system() runs a command');
  if (/(^|[^|])\|(?!\|)/.test(code)) found.push('awk | pipes to or from a command');
  if (/@(load|include)\b/.test(code)) found.push('awk @load/@include loads code');
  if (/@[A-Za-z_][A-Za-z0-9_]*\s*\(/.test(code)) found.push('awk @name() calls a function by name');
  // print/printf … > file: a `>` at parenthesis depth 0 inside a print statement.
  const printStatements = code.match(/\bprintf?\b[^;}\n]*/g) ?? [];
  for (const statement of printStatements) {
    let depth = 0;
    for (const character of statement) {
      if (character === '(') depth += 1;
      else if (character === ')') depth -= 1;
      else if (character === '>' && depth <= 0) {
        found.push('awk print > writes a file');
        break;
      }
    }
  }
  return [...new Set(found)];
}

const AWK_STRING = String.raw`"((?:[^"\\]|\\.)*)"`;

/** The literal command strings an awk program runs (`system("…")`, `"…" | getline`, `| "…"`). */
export function awkProgramCommands(program: string): string[] {
  const patterns = [
    new RegExp(String.raw`\bsystem\s*\(\s*` + AWK_STRING, 'g'),
    new RegExp(AWK_STRING + String.raw`\s*\|(?!\|)`, 'g'),
    new RegExp(String.raw`(?:^|[^|])\|\s*` + AWK_STRING, 'g'),
  ];
  const commands: string[] = [];
  for (const pattern of patterns) {
    for (const match of program.matchAll(pattern)) {
      commands.push(
        match[1]!.replace(/\\(.)/g, (_all, character: string) =>
          character === 'n' ? '\n' : character,
        ),
      );
    }
  }
  return commands;
}
