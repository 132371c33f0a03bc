import { formatPermissionRule, type PermissionRule } from './permission-rule.js';
import { pathMatchesSpecifier, type PathBase } from './path-matching.js';
import {
  analyzeShellCommand,
  shellSpecifierMatches,
  type ShellCommandAnalysis,
} from './shell-command.js';
import { isPathTool, isShellTool, ruleToolMatches } from './tool-catalog.js';

/** A tool call as the matcher sees it: paths already normalized, the shell line analysed. */
export interface PreparedCall {
  toolName: string;
  input: Record<string, unknown>;
  /** Real absolute paths the call works on (symbolic links followed). */
  paths: string[];
  /** The same paths normalized as written (links not followed), for deny and ask rules. */
  lexicalPaths: string[];
  /** Set for shell tools. */
  shell?: ShellCommandAnalysis;
  base: PathBase;
}

/** Prepares a call for matching: analyses the shell line of `Bash` calls. */
export function prepareShell(
  toolName: string,
  input: Record<string, unknown>,
): ShellCommandAnalysis | undefined {
  if (!isShellTool(toolName)) return undefined;
  const command = input.command;
  if (typeof command !== 'string') {
    return {
      commands: [],
      problems: ['the call has no "command" string'],
      readOnly: false,
      hidden: [],
    };
  }
  return analyzeShellCommand(command);
}

/** `Bash(/bin/rm:*)` also matches `rm`: the specifier with its first word's basename. */
function specifierByBasename(specifier: string): string {
  const match = /^(\S*\/)([^\s/:]+)/.exec(specifier.trim());
  return match === null ? specifier : specifier.trim().slice(match[1]!.length);
}

/** A glob in command position as a pattern for a program's basename (`/bin/r?` → `^r.$`). */
function globPattern(glob: string): RegExp {
  const base = glob.slice(glob.lastIndexOf('/') + 1);
  let source = '';
  for (let index = 0; index < base.length; index += 1) {
    const character = base[index]!;
    if (character === '*') source += '.*';
    else if (character === '?') source += '.';
    else if (character === '[') {
      const end = base.indexOf(']', index + 2);
      if (end === -1) source += '\\[';
      else {
        source += `[${base
          .slice(index + 1, end)
          .replace(/^!/, '^')
          .replace(/\\/g, '\\\\')}]`;
        index = end;
      }
    } else source += character.replace(/[.+^${}()|\\]/g, '\\$&');
  }
  try {
    return new RegExp(`^${source}$`, 's');
  } catch {
    return /^/; // a pattern this does not understand may match any program: fail closed
  }
}

/** True when a deny/ask specifier matches any way the line runs a command. */
function shellRuleMatches(specifier: string, shell: ShellCommandAnalysis): boolean {
  const alternatives = [...new Set([specifier, specifierByBasename(specifier)])];
  return shell.commands.some((command) => {
    // On a case-insensitive file system (macOS) `CURL x` runs curl: match the lower-cased name too.
    const views = command.views.flatMap((view) =>
      view[0] === undefined || view[0] === view[0].toLowerCase()
        ? [view]
        : [view, [view[0].toLowerCase(), ...view.slice(1)]],
    );
    if (
      views.some((view) =>
        alternatives.some((alternative) => shellSpecifierMatches(alternative, view)),
      )
    )
      return true;
    // `/bin/r? x` may run rm: a deny rule whose program the glob matches applies.
    if (command.commandPattern === undefined) return false;
    const pattern = globPattern(command.commandPattern);
    const program = /^\S+/.exec(specifierByBasename(specifier).trim())?.[0]?.replace(/:\*$/, '');
    if (program === undefined || !pattern.test(program)) return false;
    return shellSpecifierMatches(specifierByBasename(specifier), [
      program,
      ...command.words.slice(1),
    ]);
  });
}

function hostOf(url: unknown): string | undefined {
  if (typeof url !== 'string') return undefined;
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

/**
 * Does a deny or ask rule apply to the call? These fail closed: when the rule's specifier
 * cannot be checked against this call (no path on a path tool, an unreadable shell line,
 * a specifier this package does not understand), the rule is taken to apply.
 */
export function restrictiveRuleApplies(rule: PermissionRule, call: PreparedCall): boolean {
  if (!ruleToolMatches(rule.toolName, call.toolName)) return false;
  const specifier = rule.ruleContent;
  if (specifier === undefined || specifier === '*') return true;
  if (call.shell !== undefined) {
    if (call.shell.problems.length > 0 && call.shell.commands.length === 0) return true;
    return shellRuleMatches(specifier, call.shell);
  }
  if (isPathTool(call.toolName)) {
    if (call.paths.length === 0) return true;
    // Where the call really goes, and (failing closed) where it says it goes.
    return (
      call.paths.some((path) =>
        pathMatchesSpecifier(path, specifier, call.base, { realPaths: true }),
      ) || call.lexicalPaths.some((path) => pathMatchesSpecifier(path, specifier, call.base))
    );
  }
  if (call.toolName === 'WebFetch' && specifier.startsWith('domain:')) {
    const host = hostOf(call.input.url);
    if (host === undefined) return true;
    return domainMatches(specifier.slice('domain:'.length), host);
  }
  return true;
}

function domainMatches(domain: string, host: string): boolean {
  const wanted = domain.trim().toLowerCase();
  return host === wanted || host.endsWith(`.${wanted}`);
}

/**
 * Which allow rules together cover the call, or undefined when they do not. Allow rules
 * fail open never: a shell line is covered only when every command it can run is covered
 * by some rule (transparent wrappers and `sh -c` need none of their own) and none carries a
 * concern (a write/execute option, a computed name, a file redirection, an opaque runner);
 * a path tool only when every path matches.
 */
export function allowRulesCover(
  rules: readonly PermissionRule[],
  call: PreparedCall,
  restrictiveRules: readonly PermissionRule[] = [],
): PermissionRule[] | undefined {
  const applicable = rules.filter((rule) => ruleToolMatches(rule.toolName, call.toolName));
  const whole = applicable.find(
    (rule) => rule.ruleContent === undefined || rule.ruleContent === '*',
  );
  // With deny or ask rules naming shell commands, a line hiding what it runs (`$X y`,
  // `watch …`, `… | bash`) may run one of them: the whole-tool rule does not vouch for it.
  const shellRestricted =
    call.shell !== undefined &&
    (call.shell.problems.length > 0 || call.shell.hidden.length > 0) &&
    restrictiveRules.some(
      (rule) =>
        ruleToolMatches(rule.toolName, call.toolName) &&
        rule.ruleContent !== undefined &&
        rule.ruleContent !== '*',
    );
  if (whole !== undefined) return shellRestricted ? undefined : [whole];
  if (applicable.length === 0) return undefined;
  if (call.shell !== undefined) {
    const { commands, problems } = call.shell;
    if (problems.length > 0 || commands.length === 0) return undefined;
    const used: PermissionRule[] = [];
    for (const command of commands) {
      if (command.concerns.length > 0) return undefined;
      if (command.selfCovered) continue;
      // Allow rules match the words exactly as written: `Bash(git:*)` does not cover
      // `/tmp/git` or `./git`, which are other programs.
      const rule = applicable.find((candidate) =>
        shellSpecifierMatches(candidate.ruleContent!, command.words),
      );
      if (rule === undefined) return undefined;
      if (!used.includes(rule)) used.push(rule);
    }
    return used.length === 0 ? undefined : used;
  }
  if (isPathTool(call.toolName)) {
    if (call.paths.length === 0) return undefined;
    const used: PermissionRule[] = [];
    for (const path of call.paths) {
      const rule = applicable.find((candidate) =>
        pathMatchesSpecifier(path, candidate.ruleContent!, call.base, { realPaths: true }),
      );
      if (rule === undefined) return undefined;
      if (!used.includes(rule)) used.push(rule);
    }
    return used;
  }
  if (call.toolName === 'WebFetch') {
    const host = hostOf(call.input.url);
    if (host === undefined) return undefined;
    const rule = applicable.find(
      (candidate) =>
        candidate.ruleContent!.startsWith('domain:') &&
        domainMatches(candidate.ruleContent!.slice('domain:'.length), host),
    );
    return rule === undefined ? undefined : [rule];
  }
  return undefined;
}

/** The rules as one readable string: `Bash(git:*), Bash(npm test)`. */
export function describeRules(rules: readonly PermissionRule[]): string {
  return rules.map(formatPermissionRule).join(', ');
}

/** Why a shell line cannot be vouched for by allow rules, if it cannot. */
export function shellConcerns(shell: ShellCommandAnalysis | undefined): string[] {
  if (shell === undefined) return [];
  const concerns = [...shell.problems];
  for (const command of shell.commands) concerns.push(...command.concerns);
  return [...new Set(concerns)];
}
