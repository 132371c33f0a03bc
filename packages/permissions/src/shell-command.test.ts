import { describe, expect, it } from 'vitest';
import { analyzeShellCommand, shellSpecifierMatches } from './shell-command.js';

const words = (command: string) => analyzeShellCommand(command).segments.map((s) => s.words);
const concerns = (command: string) =>
  analyzeShellCommand(command).segments.flatMap((segment) => segment.concerns);

describe('analyzeShellCommand', () => {
  it('splits compound commands at every operator outside quotes', () => {
    expect(words('git;rm -rf /')).toEqual([['git'], ['rm', '-rf', '/']]);
    expect(words('git status && rm x || echo y | cat & sleep 1\nls')).toEqual([
      ['git', 'status'],
      ['rm', 'x'],
      ['echo', 'y'],
      ['cat'],
      ['sleep', '1'],
      ['ls'],
    ]);
    expect(words('git commit -m "a; rm -rf /" && echo \'b && c\'')).toEqual([
      ['git', 'commit', '-m', 'a; rm -rf /'],
      ['echo', 'b && c'],
    ]);
    expect(words('git log\\;rm')).toEqual([['git', 'log;rm']]);
    expect(words('(cd /tmp && rm x); git status')).toEqual([
      ['cd', '/tmp'],
      ['rm', 'x'],
      ['git', 'status'],
    ]);
  });

  it('lifts substituted commands out and marks the command that contains them', () => {
    const analysis = analyzeShellCommand('git log $(rm -rf /) "`whoami`"');
    expect(analysis.segments.map((s) => s.words)).toEqual([
      ['rm', '-rf', '/'],
      ['whoami'],
      ['git', 'log', '…', '…'],
    ]);
    expect(analysis.segments[2]!.concerns).toHaveLength(2);
    expect(analysis.segments[0]!.concerns).toEqual([]);
    expect(concerns('diff <(ls a) <(ls b)')).toContain('it uses process substitution');
  });

  it('accepts harmless redirections and flags file ones', () => {
    expect(concerns('git status 2>&1 > /dev/null')).toEqual([]);
    expect(words('git status 2>&1')).toEqual([['git', 'status']]);
    expect(concerns('echo hi > ~/.bashrc')).toEqual(['it redirects to "~/.bashrc"']);
    expect(concerns('cat <<EOF')).toEqual(['it uses a here-document (<<EOF)']);
  });

  it('reports lines it cannot read', () => {
    expect(analyzeShellCommand('echo "unterminated').problem).toMatch(/double quote/);
    expect(analyzeShellCommand("echo 'x").problem).toMatch(/single quote/);
    expect(analyzeShellCommand('echo $(ls').problem).toMatch(/never closed/);
    expect(analyzeShellCommand('echo )').problem).toMatch(/no matching/);
  });
});

describe('shellSpecifierMatches', () => {
  it('matches prefixes word by word', () => {
    expect(shellSpecifierMatches('git:*', ['git'])).toBe(true);
    expect(shellSpecifierMatches('git:*', ['git', 'push'])).toBe(true);
    expect(shellSpecifierMatches('git:*', ['gitk'])).toBe(false);
    expect(shellSpecifierMatches('git:*', ['git;rm'])).toBe(false);
    expect(shellSpecifierMatches('npm run test:*', ['npm', 'run', 'test', '--watch'])).toBe(true);
    expect(shellSpecifierMatches('npm run test:*', ['npm', 'run', 'test-all'])).toBe(false);
    expect(shellSpecifierMatches('ls *', ['ls', '-la'])).toBe(true);
  });

  it('matches exact commands and inner wildcards', () => {
    expect(shellSpecifierMatches('npm test', ['npm', 'test'])).toBe(true);
    expect(shellSpecifierMatches('npm test', ['npm', 'test', '--', 'x'])).toBe(false);
    expect(shellSpecifierMatches('docker * ps', ['docker', 'compose', 'ps'])).toBe(true);
    expect(shellSpecifierMatches('docker * ps', ['docker', 'compose', 'rm'])).toBe(false);
    expect(shellSpecifierMatches('*', ['anything'])).toBe(true);
  });
});
