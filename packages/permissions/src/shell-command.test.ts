import { describe, expect, it } from 'vitest';
import { analyzeShellCommand, shellSpecifierMatches } from './shell-command.js';

const words = (command: string) => analyzeShellCommand(command).commands.map((c) => c.words);
const concerns = (command: string) =>
  analyzeShellCommand(command).commands.flatMap((command) => command.concerns);
const problems = (command: string) => analyzeShellCommand(command).problems;

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

  it('reads compound commands, groups, functions and here-documents', () => {
    expect(words('if test -f a; then rm a; elif true; then ls; else echo; fi')).toEqual([
      ['test', '-f', 'a'],
      ['rm', 'a'],
      ['true'],
      ['ls'],
      ['echo'],
    ]);
    expect(words('for f in a b; do rm "$f"; done')).toEqual([['rm', '$f']]);
    expect(words('while read l; do echo "$l"; done < list')).toEqual([
      ['read', 'l'],
      ['echo', '$l'],
      [],
    ]);
    expect(words('case $x in a|b) rm a;; *) ls;; esac')).toEqual([['rm', 'a'], ['ls']]);
    expect(words('f() { rm x; }; f')).toEqual([['rm', 'x'], ['f']]);
    expect(words("cat <<'EOF'\n$(rm x)\nEOF\necho done")).toEqual([['cat'], ['echo', 'done']]);
    expect(words('cat <<EOF\n$(rm x)\nEOF')).toEqual([['cat'], ['rm', 'x']]);
    expect(words("bash <<'EOF'\nrm x\nEOF")).toEqual([['bash'], ['rm', 'x']]);
  });

  it('lifts substituted commands out and marks the command that contains them', () => {
    const analysis = analyzeShellCommand('git log $(rm -rf /) "`whoami`"');
    expect(analysis.commands.map((c) => c.words)).toEqual([
      ['rm', '-rf', '/'],
      ['whoami'],
      ['git', 'log', '$(rm -rf /)', '`whoami`'],
    ]);
    expect(analysis.commands[2]!.concerns.length).toBeGreaterThan(0);
    expect(analysis.commands[0]!.concerns).toEqual([]);
    expect(words('diff <(ls a) <(ls b)')).toEqual([
      ['ls', 'a'],
      ['ls', 'b'],
      ['diff', '<(ls a)', '<(ls b)'],
    ]);
  });

  it('looks through wrappers, shells and eval', () => {
    const views = (command: string) =>
      analyzeShellCommand(command).commands.flatMap((c) => c.views.map((view) => view.join(' ')));
    expect(views('sudo -u root env X=1 nice -n 5 /bin/rm -rf x')).toContain('rm -rf x');
    expect(views(`bash -c 'echo a; rm x'`)).toContain('rm x');
    expect(views(`sh -ec "timeout 5 rm x"`)).toContain('rm x');
    expect(views(`eval 'rm x'`)).toContain('rm x');
    expect(views(`find . -name '*.tmp' -exec rm {} \\;`)).toContain('rm {}');
    expect(views('xargs -0 -n 1 rm < list')).toContain('rm');
    expect(views('command -v rm')).toEqual(['command -v rm']);
  });

  it('accepts harmless redirections and flags file ones', () => {
    expect(concerns('git status 2>&1 > /dev/null')).toEqual([]);
    expect(words('git status 2>&1')).toEqual([['git', 'status']]);
    expect(concerns('echo hi > ~/.bashrc')).toEqual(['it redirects to "~/.bashrc"']);
    expect(analyzeShellCommand('echo hi >> notes.txt').readOnly).toBe(false);
    expect(analyzeShellCommand('ls -la; git status').readOnly).toBe(true);
    expect(analyzeShellCommand('ls; rm -rf x').readOnly).toBe(false);
  });

  it('reports lines it cannot read', () => {
    expect(problems('echo "unterminated')).toEqual([expect.stringMatching(/double quote/)]);
    expect(problems("echo 'x")).toEqual([expect.stringMatching(/single quote/)]);
    expect(problems('echo $(ls')).toEqual([expect.stringMatching(/never closed/)]);
    expect(problems('echo )')).toEqual([expect.stringMatching(/unexpected/)]);
    expect(problems('if true; then ls')).toEqual([expect.stringMatching(/"fi"/)]);
    expect(problems('cat <<EOF\nno end')).toEqual([expect.stringMatching(/never ends/)]);
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
