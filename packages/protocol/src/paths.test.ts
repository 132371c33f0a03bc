import { describe, expect, it } from 'vitest';
import { MusterError } from './errors.js';
import { awkwardStrings, HOSTILE_NAMES } from '../test/hostile-names.js';
import { createRootLayout, defaultRoot, joinUnderRoot, normalizePosixPath } from './paths.js';

function errorCode(action: () => unknown): string | undefined {
  try {
    action();
  } catch (error) {
    if (MusterError.isInstance(error)) return error.code;
    throw error;
  }
  return undefined;
}

describe('normalizePosixPath', () => {
  it.each([
    ['/a/b/../c', '/a/c'],
    ['/a//b/./c/', '/a/b/c'],
    ['/../..', '/'],
    ['a/../../b', '../b'],
    ['./a', 'a'],
    ['a/..', '.'],
    ['', '.'],
    ['/', '/'],
  ])('%s → %s', (input, expected) => {
    expect(normalizePosixPath(input)).toBe(expected);
  });
});

describe('createRootLayout', () => {
  const layout = createRootLayout('/home/user/.muster/');

  it('lays out every path Claude Code uses under the root', () => {
    expect(layout.root).toBe('/home/user/.muster');
    expect(layout.teamsDirectory()).toBe('/home/user/.muster/teams');
    expect(layout.teamDirectory('conf-team')).toBe('/home/user/.muster/teams/conf-team');
    expect(layout.teamConfigPath('conf-team')).toBe(
      '/home/user/.muster/teams/conf-team/config.json',
    );
    expect(layout.inboxesDirectory('conf-team')).toBe('/home/user/.muster/teams/conf-team/inboxes');
    expect(layout.inboxPath('conf-team', 'team-lead')).toBe(
      '/home/user/.muster/teams/conf-team/inboxes/team-lead.json',
    );
    expect(layout.inboxPath('conf-team', 'alpha@conf-team')).toBe(
      '/home/user/.muster/teams/conf-team/inboxes/alpha-conf-team.json',
    );
    expect(layout.tasksRootDirectory()).toBe('/home/user/.muster/tasks');
    expect(layout.tasksDirectory('conf-team')).toBe('/home/user/.muster/tasks/conf-team');
    expect(layout.taskPath('conf-team', '7')).toBe('/home/user/.muster/tasks/conf-team/7.json');
    expect(layout.tasksLockPath('conf-team')).toBe('/home/user/.muster/tasks/conf-team/.lock');
    expect(layout.highWatermarkPath('conf-team')).toBe(
      '/home/user/.muster/tasks/conf-team/.highwatermark',
    );
  });

  it("lays out muster's own additions beside them", () => {
    expect(layout.inboxArchivePath('conf-team', 'alpha')).toBe(
      '/home/user/.muster/teams/conf-team/inboxes/alpha.archive.jsonl',
    );
    expect(layout.sidecarDirectory('conf-team')).toBe('/home/user/.muster/teams/conf-team/.muster');
    expect(layout.sidecarPath('conf-team', 'members.json')).toBe(
      '/home/user/.muster/teams/conf-team/.muster/members.json',
    );
  });

  it.each(HOSTILE_NAMES.map((name) => [JSON.stringify(name).slice(0, 40), name]))(
    'refuses the name %s everywhere a name becomes a path segment',
    (_label, name) => {
      const attempts: Array<() => unknown> = [
        () => layout.teamDirectory(name),
        () => layout.teamConfigPath(name),
        () => layout.inboxesDirectory(name),
        () => layout.inboxPath(name, 'alpha'),
        () => layout.inboxPath('conf-team', name),
        () => layout.inboxArchivePath('conf-team', name),
        () => layout.sidecarDirectory(name),
        () => layout.sidecarPath('conf-team', name),
        () => layout.tasksDirectory(name),
        () => layout.taskPath(name, '1'),
        () => layout.taskPath('conf-team', name),
        () => layout.tasksLockPath(name),
        () => layout.highWatermarkPath(name),
      ];
      for (const attempt of attempts) expect(errorCode(attempt)).toBe('INVALID_NAME');
    },
  );

  it('refuses task ids that are not positive whole numbers', () => {
    for (const id of ['0', '01', 'abc', '1.json', '../1']) {
      expect(errorCode(() => layout.taskPath('conf-team', id))).toBe('INVALID_NAME');
    }
  });

  it('refuses an empty root and a root holding NUL', () => {
    expect(errorCode(() => createRootLayout(''))).toBe('INVALID_INPUT');
    expect(errorCode(() => createRootLayout('   '))).toBe('INVALID_INPUT');
    expect(errorCode(() => createRootLayout('/tmp/a\0b'))).toBe('INVALID_INPUT');
  });

  it('works with relative roots, including "."', () => {
    expect(createRootLayout('.').teamConfigPath('t')).toBe('teams/t/config.json');
    expect(createRootLayout('state/../data').taskPath('t', '3')).toBe('data/tasks/t/3.json');
    expect(createRootLayout('../shared').inboxPath('t', 'a')).toBe(
      '../shared/teams/t/inboxes/a.json',
    );
  });
});

describe('joinUnderRoot', () => {
  it('joins safe segments under the root', () => {
    expect(joinUnderRoot('/r', 'a', 'b.json')).toBe('/r/a/b.json');
    expect(joinUnderRoot('/', 'etc')).toBe('/etc');
    expect(joinUnderRoot('/r')).toBe('/r');
  });

  it('never lets a segment leave the root', () => {
    for (const segment of ['..', '../x', 'a/../../b', '/etc/passwd', 'x/../..', 'nul\0', '.']) {
      expect(['INVALID_NAME', 'PATH_ESCAPES_ROOT']).toContain(
        errorCode(() => joinUnderRoot('/r', segment)),
      );
    }
  });

  it('returns a path under the root or throws, for any awkward segments', () => {
    for (const root of ['/r', '/r/s', '.', 'relative']) {
      const prefix = root === '.' ? '' : `${root}/`;
      for (const segment of [...HOSTILE_NAMES, ...awkwardStrings(300, 3)]) {
        let joined: string | undefined;
        try {
          joined = joinUnderRoot(root, 'teams', segment, 'config.json');
        } catch (error) {
          expect(MusterError.hasCode(error, 'INVALID_NAME')).toBe(true);
          continue;
        }
        expect(joined.startsWith(prefix)).toBe(true);
        expect(joined.split('/')).not.toContain('..');
        expect(joined.endsWith('/config.json')).toBe(true);
      }
    }
  });
});

describe('defaultRoot', () => {
  it('uses MUSTER_HOME when set, else {home}/.muster', () => {
    expect(defaultRoot({ MUSTER_HOME: '/srv/muster/' }, '/home/u')).toBe('/srv/muster');
    expect(defaultRoot({ MUSTER_HOME: '  ' }, '/home/u')).toBe('/home/u/.muster');
    expect(defaultRoot({}, '/home/u')).toBe('/home/u/.muster');
  });
});
