import { describe, expect, it } from 'vitest';
import { MusterError } from './errors.js';
import {
  agentNameToFileName,
  assertSafePathSegment,
  assertTaskId,
  claudeCodeTeamFolderName,
  formatAgentId,
  MAXIMUM_AGENT_NAME_LENGTH,
  parseAgentId,
  sanitizeAgentName,
  sanitizeTeamName,
  stripTeamSuffix,
} from './names.js';
import { awkwardStrings, HOSTILE_NAMES } from '../test/hostile-names.js';

function expectInvalidName(action: () => unknown): void {
  let thrown: unknown;
  try {
    action();
  } catch (error) {
    thrown = error;
  }
  expect(
    MusterError.hasCode(thrown, 'INVALID_NAME'),
    `expected INVALID_NAME, got ${String(thrown)}`,
  ).toBe(true);
}

describe('assertSafePathSegment', () => {
  it.each(HOSTILE_NAMES.map((name) => [JSON.stringify(name).slice(0, 40), name]))(
    'refuses %s with INVALID_NAME',
    (_label, name) => {
      expectInvalidName(() => assertSafePathSegment(name));
    },
  );

  it('returns ordinary names unchanged, including dots inside and unicode', () => {
    for (const name of ['alpha', 'team-lead', 'a.b', '..a', 'é', '名前', 'x'.repeat(255)]) {
      expect(assertSafePathSegment(name)).toBe(name);
    }
  });

  it('says what was wrong and which name it was', () => {
    expect(() => assertSafePathSegment('../x', 'team name')).toThrow(
      /team name "\.\.\/x" cannot be used: it contains a path separator/,
    );
  });
});

describe('sanitizeTeamName', () => {
  it('matches Claude Code for ASCII names: non-alphanumerics become "-", then lower case', () => {
    expect(sanitizeTeamName('conf-team')).toBe('conf-team');
    expect(sanitizeTeamName('My Team!')).toBe('my-team-');
    expect(sanitizeTeamName(' spaced ')).toBe('-spaced-');
    expect(sanitizeTeamName('../../etc')).toBe('------etc');
    expect(sanitizeTeamName('a/../../b')).toBe('a-------b');
    for (const name of ['conf-team', 'My Team!', ' spaced ', 'a/../../b']) {
      expect(sanitizeTeamName(name)).toBe(claudeCodeTeamFolderName(name));
    }
  });

  it('keeps accented names readable: accents dropped, special Latin letters spelled out', () => {
    expect(sanitizeTeamName('Équipe doc')).toBe('equipe-doc');
    expect(sanitizeTeamName('Équipe Ünïcode')).toBe('equipe-unicode');
    expect(sanitizeTeamName('Straße Øst Łódź')).toBe('strasse-ost-lodz');
    expect(sanitizeTeamName('ﬁnance Ｔｅａｍ ①')).toBe('finance-team-1');
    // Precomposed and decomposed spellings of the same name give the same folder.
    expect(sanitizeTeamName('Cafe\u0301')).toBe(sanitizeTeamName('Caf\u00e9'));
    // Claude Code's own folder for such names, to find teams it made.
    expect(claudeCodeTeamFolderName('Équipe doc')).toBe('-quipe-doc');
  });

  it('refuses names with no letter or digit, and names too long for a folder', () => {
    for (const name of ['', '..', '../..', '名前', '🚀', '   ', 'x'.repeat(256)]) {
      expectInvalidName(() => sanitizeTeamName(name));
    }
  });

  it('says why a name in another script cannot be a folder name', () => {
    expect(() => sanitizeTeamName('名前')).toThrow(
      /no ASCII letters or digits, even with accents removed/,
    );
    expect(() => sanitizeTeamName('!!!')).toThrow(/has no letters or digits/);
  });

  it('always yields a safe folder name, or refuses with INVALID_NAME', () => {
    for (const name of [...HOSTILE_NAMES, ...awkwardStrings(400)]) {
      let sanitized: string | undefined;
      try {
        sanitized = sanitizeTeamName(name);
      } catch (error) {
        expect(MusterError.hasCode(error, 'INVALID_NAME')).toBe(true);
        continue;
      }
      expect(sanitized).toMatch(/^[a-z0-9-]{1,255}$/);
      expect(assertSafePathSegment(sanitized)).toBe(sanitized);
      expect(sanitizeTeamName(sanitized)).toBe(sanitized);
    }
  });
});

describe('sanitizeAgentName', () => {
  it('keeps the names models choose', () => {
    for (const name of ['researcher', 'test-writer', 'alpha', 'team-lead', 'agent_2', 'v1.2']) {
      expect(sanitizeAgentName(name)).toBe(name);
    }
  });

  it('turns separators, "@" and unicode into single dashes and trims the ends', () => {
    expect(sanitizeAgentName('../../etc/passwd')).toBe('etc-passwd');
    expect(sanitizeAgentName('researcher@other-team')).toBe('researcher-other-team');
    expect(sanitizeAgentName('bob 🚀')).toBe('bob');
    expect(sanitizeAgentName('  code reviewer  ')).toBe('code-reviewer');
    expect(sanitizeAgentName('naïve')).toBe('na-ve');
  });

  it('refuses names with no letter or digit', () => {
    for (const name of ['', '.', '..', '../..', '名前', '@', '_', '-.-']) {
      expectInvalidName(() => sanitizeAgentName(name));
    }
  });

  it('caps the length, and sanitizing twice changes nothing', () => {
    const long = `${'a'.repeat(MAXIMUM_AGENT_NAME_LENGTH - 1)}-tail`;
    const sanitized = sanitizeAgentName(long);
    expect(sanitized).toBe('a'.repeat(MAXIMUM_AGENT_NAME_LENGTH - 1));
    expect(sanitizeAgentName(sanitized)).toBe(sanitized);
  });

  it('always yields a safe, "@"-free file name, or refuses with INVALID_NAME', () => {
    for (const name of [...HOSTILE_NAMES, ...awkwardStrings(400, 11)]) {
      let sanitized: string | undefined;
      try {
        sanitized = sanitizeAgentName(name);
      } catch (error) {
        expect(MusterError.hasCode(error, 'INVALID_NAME')).toBe(true);
        continue;
      }
      expect(sanitized).toMatch(/^[A-Za-z0-9_][A-Za-z0-9._-]*$/);
      expect(sanitized.length).toBeLessThanOrEqual(MAXIMUM_AGENT_NAME_LENGTH);
      expect(sanitized.endsWith('-') || sanitized.endsWith('.')).toBe(false);
      expect(agentNameToFileName(sanitized)).toBe(sanitized);
      expect(sanitizeAgentName(sanitized)).toBe(sanitized);
    }
  });
});

describe('agentNameToFileName', () => {
  it('maps "@" to "-" as Claude Code builds inbox paths', () => {
    expect(agentNameToFileName('alpha')).toBe('alpha');
    expect(agentNameToFileName('alpha@conf-team')).toBe('alpha-conf-team');
  });

  it.each(HOSTILE_NAMES.map((name) => [JSON.stringify(name).slice(0, 40), name]))(
    'refuses %s',
    (_label, name) => {
      expectInvalidName(() => agentNameToFileName(name));
    },
  );
});

describe('assertTaskId', () => {
  it('accepts positive whole numbers written without leading zeros', () => {
    for (const id of ['1', '7', '42', '100000']) expect(assertTaskId(id)).toBe(id);
  });

  it('refuses everything else with INVALID_NAME', () => {
    for (const id of ['', '0', '01', '-1', '1.5', '1e3', 'abc', ' 1', '../1', '9'.repeat(16)]) {
      expectInvalidName(() => assertTaskId(id));
    }
  });
});

describe('agent ids', () => {
  it('builds name@team', () => {
    expect(formatAgentId('alpha', 'conf-team')).toBe('alpha@conf-team');
    expect(formatAgentId('team-lead', 'conf-team')).toBe('team-lead@conf-team');
  });

  it('refuses a name that already holds "@"', () => {
    let thrown: unknown;
    try {
      formatAgentId('a@b', 'team');
    } catch (error) {
      thrown = error;
    }
    expect(MusterError.hasCode(thrown, 'INVALID_AGENT_ID')).toBe(true);
  });

  it('parses name@team at the first "@", and round-trips', () => {
    expect(parseAgentId('alpha@conf-team')).toEqual({ agentName: 'alpha', teamName: 'conf-team' });
    expect(parseAgentId(formatAgentId('beta', 'x'))).toEqual({ agentName: 'beta', teamName: 'x' });
    expect(parseAgentId('a@b@c')).toEqual({ agentName: 'a', teamName: 'b@c' });
  });

  it('returns undefined for strings that are not agent ids', () => {
    for (const value of ['alpha', '@team', 'alpha@', '', '@']) {
      expect(parseAgentId(value)).toBeUndefined();
    }
  });

  it('strips a matching team suffix and refuses another team', () => {
    expect(stripTeamSuffix('alpha')).toBe('alpha');
    expect(stripTeamSuffix('alpha@conf-team', 'conf-team')).toBe('alpha');
    expect(stripTeamSuffix('alpha@conf-team')).toBe('alpha');
    expect(() => stripTeamSuffix('alpha@other', 'conf-team')).toThrow(/belongs to team "other"/);
  });
});
