/**
 * Text an attacker would put in a message, name or description: an OSC sequence that
 * retitles the terminal, a CSI sequence that clears it, a carriage return that overwrites
 * the line, and a right-to-left override that reorders what follows.
 */
export const HOSTILE_TEXT = 'hi\u001b]0;pwned\u0007 \u001b[2J\rfake\u202eevil';

/** How {@link HOSTILE_TEXT} must arrive on screen: every hostile character escaped visibly. */
export const HOSTILE_TEXT_ESCAPED = 'hi␛]0;pwned␇ ␛[2J␍fake\\u{202e}evil';

/** True when output still holds a raw control, escape or bidi character that was sent. */
export function containsRawHostileCharacters(output: string): boolean {
  return ['\u001b]0;pwned', '\u001b[2J', '\rfake', '\u202e'].some((raw) => output.includes(raw));
}
