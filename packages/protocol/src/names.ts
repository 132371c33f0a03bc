import { ProtocolError } from './errors.js';

// eslint-disable-next-line no-control-regex -- control characters are exactly what this rejects
const UNSAFE_SEGMENT = /[/\\\0]|[\u0000-\u001f\u007f]/;

/** Most file systems refuse a path segment longer than this many bytes. */
const MAXIMUM_SEGMENT_BYTES = 255;

/**
 * Checks that a string can be used as one path segment: not empty, not `.` or `..`, no
 * separators, NUL or control characters, at most 255 bytes. Throws `INVALID_NAME` otherwise.
 */
export function assertSafePathSegment(segment: string, what = 'name'): string {
  const reason =
    segment.length === 0
      ? 'it is empty'
      : segment === '.' || segment === '..'
        ? `"${segment}" refers to a folder, not a name`
        : UNSAFE_SEGMENT.test(segment)
          ? 'it contains a path separator, NUL or control character'
          : new TextEncoder().encode(segment).length > MAXIMUM_SEGMENT_BYTES
            ? 'it is longer than 255 bytes'
            : undefined;
  if (reason !== undefined) {
    throw new ProtocolError({
      code: 'INVALID_NAME',
      message: `The ${what} ${JSON.stringify(segment)} cannot be used: ${reason}. Use letters, digits, "-", "_" or ".".`,
      details: { value: segment, what },
    });
  }
  return segment;
}

/**
 * Latin letters that Unicode does not decompose into a base letter and a mark, spelled out
 * the way people write them without the special letter.
 */
const LATIN_LETTERS_WITHOUT_DECOMPOSITION: Readonly<Record<string, string>> = {
  ß: 'ss',
  ẞ: 'ss',
  æ: 'ae',
  Æ: 'ae',
  œ: 'oe',
  Œ: 'oe',
  ø: 'o',
  Ø: 'o',
  đ: 'd',
  Đ: 'd',
  ð: 'd',
  Ð: 'd',
  ł: 'l',
  Ł: 'l',
  þ: 'th',
  Þ: 'th',
  ı: 'i',
};

/**
 * Spells a name in ASCII where Unicode allows it: compatibility decomposition (NFKD: `é` →
 * `e` + accent, `ﬁ` → `fi`, full-width `Ａ` → `A`), combining marks dropped, and the few Latin
 * letters without a decomposition spelled out (`ß` → `ss`, `ø` → `o`). Other scripts stay as
 * they are.
 */
export function transliterateToAscii(value: string): string {
  return value
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(
      /[ßẞæÆœŒøØđĐðÐłŁþÞı]/g,
      (letter) => LATIN_LETTERS_WITHOUT_DECOMPOSITION[letter] ?? letter,
    );
}

/**
 * Turns a requested team name into its folder name. Accents are dropped first
 * ({@link transliterateToAscii}: `"Équipe doc"` → `"equipe-doc"`), then, as Claude Code
 * does, every character other than ASCII letters and digits becomes `-` and the result is
 * lower-cased (`"My Team!"` → `"my-team-"`). ASCII names get exactly Claude Code's folder;
 * for accented ones Claude Code's own folder is {@link claudeCodeTeamFolderName}. The same
 * name always gives the same folder, and sanitizing a result changes nothing. Throws
 * `INVALID_NAME` when no ASCII letter or digit remains (a name in another script) or the
 * result is longer than 255 characters (no file system could hold that folder).
 */
export function sanitizeTeamName(requested: string): string {
  return checkedTeamFolderName(requested, transliterateToAscii(requested));
}

/**
 * The folder Claude Code itself makes for a team name: every character other than ASCII
 * letters and digits becomes `-`, then lower case (`"Équipe"` → `"-quipe"`). Use it to find a
 * team Claude Code created; muster creates teams with {@link sanitizeTeamName}. Throws
 * `INVALID_NAME` as that does.
 */
export function claudeCodeTeamFolderName(requested: string): string {
  return checkedTeamFolderName(requested, requested);
}

function checkedTeamFolderName(requested: string, spelled: string): string {
  const sanitized = spelled.replace(/[^a-zA-Z0-9]/g, '-').toLowerCase();
  if (!/[a-z0-9]/.test(sanitized)) {
    const hasLetters = /[\p{L}\p{N}]/u.test(requested);
    throw new ProtocolError({
      code: 'INVALID_NAME',
      message: hasLetters
        ? `The team name ${JSON.stringify(requested)} has no ASCII letters or digits, even with accents removed: a team name becomes a folder name of ASCII letters, digits and "-". Choose a name in Latin letters, such as "my-team".`
        : `The team name ${JSON.stringify(requested)} has no letters or digits. Choose a name such as "my-team".`,
      details: { value: requested, what: 'team name' },
    });
  }
  if (sanitized.length > MAXIMUM_SEGMENT_BYTES) {
    throw new ProtocolError({
      code: 'INVALID_NAME',
      message: `The team name ${JSON.stringify(requested.slice(0, 40))}… is ${sanitized.length} characters long; a team name becomes a folder name and may have at most ${MAXIMUM_SEGMENT_BYTES}. Choose a shorter name.`,
      details: { value: requested, what: 'team name' },
    });
  }
  return sanitized;
}

/** The longest agent name {@link sanitizeAgentName} returns. */
export const MAXIMUM_AGENT_NAME_LENGTH = 64;

/**
 * Turns a requested agent name into a safe member name: ASCII letters, digits, `-`, `_`
 * and `.` are kept, runs of anything else (including `@` and `/`) become one `-`, the
 * result is cut to 64 characters, then leading and trailing `-`/`.` are dropped. Names
 * Claude Code's models choose (`researcher`, `test-writer`) come through unchanged, and
 * sanitizing a sanitized name changes nothing. Throws `INVALID_NAME` when nothing usable
 * remains.
 */
export function sanitizeAgentName(requested: string): string {
  const sanitized = requested
    .replace(/[^a-zA-Z0-9._-]+/g, '-')
    .slice(0, MAXIMUM_AGENT_NAME_LENGTH)
    .replace(/^[-.]+|[-.]+$/g, '');
  if (!/[a-zA-Z0-9]/.test(sanitized)) {
    throw new ProtocolError({
      code: 'INVALID_NAME',
      message: `The agent name ${JSON.stringify(requested)} has no letters or digits. Choose a name such as "researcher".`,
      details: { value: requested, what: 'agent name' },
    });
  }
  return sanitized;
}

/**
 * The file-name form of an agent name, as Claude Code builds inbox paths (`@` → `-`),
 * then checked to be one safe path segment.
 */
export function agentNameToFileName(agentName: string): string {
  return assertSafePathSegment(agentName.replace(/@/g, '-'), 'agent name');
}

/** Checks a task id (`"7"`) and returns it; throws `INVALID_NAME` for anything else. */
export function assertTaskId(taskId: string): string {
  if (!/^[0-9]{1,15}$/.test(taskId) || /^0[0-9]/.test(taskId) || taskId === '0') {
    throw new ProtocolError({
      code: 'INVALID_NAME',
      message: `The task id ${JSON.stringify(taskId)} is not valid: task ids are positive whole numbers such as "7".`,
      details: { value: taskId, what: 'task id' },
    });
  }
  return taskId;
}

/** Builds an agent id, `name@team`. */
export function formatAgentId(agentName: string, teamName: string): string {
  if (agentName.includes('@')) {
    throw new ProtocolError({
      code: 'INVALID_AGENT_ID',
      message: `The agent name ${JSON.stringify(agentName)} contains "@"; sanitize it with sanitizeAgentName first.`,
      details: { agentName, teamName },
    });
  }
  return `${agentName}@${teamName}`;
}

/** Splits `name@team` at its first `@`; undefined when it is not an agent id. */
export function parseAgentId(agentId: string): { agentName: string; teamName: string } | undefined {
  const at = agentId.indexOf('@');
  if (at <= 0 || at === agentId.length - 1) return undefined;
  return { agentName: agentId.slice(0, at), teamName: agentId.slice(at + 1) };
}

/**
 * Accepts `name` or `name@team` and returns the bare agent name (SendMessage recipients may
 * be given either way). Throws `INVALID_AGENT_ID` when the team part names another team.
 */
export function stripTeamSuffix(recipient: string, teamName?: string): string {
  const parsed = parseAgentId(recipient);
  if (parsed === undefined) return recipient;
  if (teamName !== undefined && parsed.teamName !== teamName) {
    throw new ProtocolError({
      code: 'INVALID_AGENT_ID',
      message: `${JSON.stringify(recipient)} belongs to team "${parsed.teamName}", not "${teamName}".`,
      details: { recipient, teamName },
    });
  }
  return parsed.agentName;
}
