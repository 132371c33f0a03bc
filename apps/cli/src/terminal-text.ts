/**
 * Terminal-safe text: everything muster prints or draws that came from disk, an agent or the
 * command line passes through {@link escapeTerminalText} first, so no message, name or
 * description can retitle the terminal, clear it, move the cursor, overwrite what was
 * printed, or reorder what the reader sees.
 */

/** Which layout characters a place on the screen can take as they are. */
export interface TerminalTextOptions {
  /**
   * Keep line feeds (and turn a CRLF pair into one line feed) where the output is laid out
   * over several lines (a message body). Default `false`: a line feed is shown as `␊`.
   */
  keepLineBreaks?: boolean;
  /**
   * Keep tabs where a tab cannot break the layout. Default `false`: a tab becomes one space
   * when `keepLineBreaks` is on (flowing text), else `␉`.
   */
  keepTabs?: boolean;
}

/**
 * Characters that are invisible or reorder text: bidirectional embeddings, overrides and
 * isolates (U+202A–202E, U+2066–2069), the directional marks (U+200E/F, U+061C), zero-width
 * space and invisible operators (U+200B, U+2060–U+2064, U+FEFF; the joiners U+200C/D stay,
 * emoji and several scripts need them), the deprecated
 * format characters (U+206A–206F), line and paragraph separators (U+2028/9), interlinear
 * annotations (U+FFF9–FFFB), the Mongolian vowel separator (U+180E), the tag characters
 * (U+E0000–E007F), and characters that draw as nothing and can pad a name to look like
 * another: soft hyphen (U+00AD), combining grapheme joiner (U+034F), Hangul fillers
 * (U+115F, U+1160, U+3164, U+FFA0) and Khmer inherent vowels (U+17B4, U+17B5).
 */
const INVISIBLE_FORMATTING =
  /\u034f|\u17b4|\u17b5|[\u00ad\u061c\u115f\u1160\u180e\u200b\u200e\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\u3164\ufeff\uffa0\ufff9-\ufffb\u{e0000}-\u{e007f}]/u;

/** Every character {@link escapeTerminalText} may rewrite (C0, DEL, C1 and the above). */
const UNSAFE_CHARACTERS = new RegExp(
  `\\r\\n|[\\u0000-\\u001f\\u007f-\\u009f]|${INVISIBLE_FORMATTING.source}`,
  'gu',
);

/** A visible stand-in for a C0 control character or DEL: its Control Picture (␛, ␍, ␇ …). */
function controlPicture(code: number): string {
  return code === 0x7f ? '\u2421' : String.fromCodePoint(0x2400 + code);
}

/** `\u{…}` for a code point with no Control Picture (C1 controls, bidi and invisible ones). */
function codePointEscape(character: string): string {
  return `\\u{${(character.codePointAt(0) ?? 0).toString(16)}}`;
}

/**
 * Makes text safe to print to a terminal, visibly: C0 controls and DEL become their Unicode
 * Control Pictures (ESC `\x1b` → `␛`, CR → `␍`, BEL → `␇`, backspace → `␈`), C1 controls and
 * bidi/invisible formatting characters become `\u{…}` (U+202E → `\u{202e}`), so an escape
 * sequence arrives as harmless printable text (`\x1b]0;pwned\x07` → `␛]0;pwned␇`) and the
 * reader sees that something was there. Line feeds and tabs are kept only when the options
 * say the layout allows them. Every other character, emoji and non-Latin scripts included,
 * is left as it is. Pure and linear in the length of the text.
 */
export function escapeTerminalText(text: string, options: TerminalTextOptions = {}): string {
  const keepLineBreaks = options.keepLineBreaks === true;
  const keepTabs = options.keepTabs === true;
  return text.replace(UNSAFE_CHARACTERS, (character) => {
    if (character === '\r\n') {
      return keepLineBreaks ? '\n' : `${controlPicture(0x0d)}${controlPicture(0x0a)}`;
    }
    if (character === '\n' && keepLineBreaks) return '\n';
    if (character === '\t') {
      if (keepTabs) return '\t';
      if (keepLineBreaks) return ' ';
    }
    const code = character.codePointAt(0) ?? 0;
    if (code <= 0x1f || code === 0x7f) return controlPicture(code);
    return codePointEscape(character);
  });
}

/** True when {@link escapeTerminalText} would change nothing (text safe as one line). */
export function isTerminalSafeLine(text: string): boolean {
  UNSAFE_CHARACTERS.lastIndex = 0;
  const unsafe = UNSAFE_CHARACTERS.test(text);
  UNSAFE_CHARACTERS.lastIndex = 0;
  return !unsafe;
}

/** Characters JSON may carry raw that a terminal acts on or hides: DEL, C1, bidi, invisible. */
const JSON_UNSAFE_CHARACTERS = new RegExp(`[\\u007f-\\u009f]|${INVISIBLE_FORMATTING.source}`, 'gu');

/**
 * Makes JSON text safe to print to a terminal without changing what it means: JSON.stringify
 * already writes C0 controls as `\u001b`, but leaves DEL, C1 controls and bidirectional or
 * invisible formatting characters raw; they are written as `\u202e` escapes here (outside
 * the Basic Multilingual Plane as a surrogate pair), which every JSON parser reads back as
 * the same string. Apply it to the output of JSON.stringify, never to other text.
 */
export function escapeJsonForTerminal(jsonText: string): string {
  return jsonText.replace(JSON_UNSAFE_CHARACTERS, (character) => {
    let escaped = '';
    for (let index = 0; index < character.length; index += 1) {
      escaped += `\\u${character.charCodeAt(index).toString(16).padStart(4, '0')}`;
    }
    return escaped;
  });
}
