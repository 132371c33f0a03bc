/** Small pure helpers for the shell tokenizer: `$'…'` decoding and brace lists. */

/** Decodes the escapes of a `$'…'` string; undefined when one is not understood. */
export function decodeAnsiC(body: string): string | undefined {
  // prettier-ignore
  const simple: Record<string, string> = {
    n: '\n', t: '\t', r: '\r', a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', v: '\v',
    '\\': '\\', "'": "'", '"': '"', '?': '?',
  };
  let out = '';
  for (let index = 0; index < body.length; index += 1) {
    const character = body[index]!;
    if (character !== '\\') {
      out += character;
      continue;
    }
    const next = body[index + 1] ?? '';
    const hex = /^x([0-9a-fA-F]{1,2})/.exec(body.slice(index + 1));
    const octal = /^([0-7]{1,3})/.exec(body.slice(index + 1));
    const unicode = /^[uU]([0-9a-fA-F]{1,8})/.exec(body.slice(index + 1));
    if (simple[next] !== undefined) {
      out += simple[next];
      index += 1;
    } else if (hex) {
      out += String.fromCharCode(parseInt(hex[1]!, 16));
      index += hex[0].length;
    } else if (octal) {
      out += String.fromCharCode(parseInt(octal[1]!, 8));
      index += octal[0].length;
    } else if (unicode) {
      const codePoint = parseInt(unicode[1]!, 16);
      if (codePoint > 0x10ffff) return undefined;
      out += String.fromCodePoint(codePoint);
      index += unicode[0].length;
    } else return undefined;
  }
  return out;
}

/** Expands one simple brace list `pre{a,b}post` → `prea`, `preb`; undefined otherwise. */
export function expandBraceList(text: string): string[] | undefined {
  const match = /^([^{}]*)\{([^{}]*,[^{}]*)\}([^{}]*)$/.exec(text);
  if (!match) return undefined;
  return match[2]!.split(',').map((part) => `${match[1]}${part}${match[3]}`);
}
