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
  /** Normalized absolute paths the call works on. */
  paths: string[];
  /** Set for shell tools. */
  shell?: ShellCommandAnalysis;
  base: PathBase;
}

/** Prepares a call for matching: analyses the shell line of `Bash` calls. */
export function prepareShell(toolName: string, input: Record<string, unknown>) {
  if (!isShellTool(toolName)) return undefined;
  const command = input.command;
  if (typeof command !== 'string') {
    return { segments: [], problem: 'the call has no "command" string' };
  }
  return analyzeShellCommand(command);
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
    if (call.shell.problem !== undefined && call.shell.segments.length === 0) return true;
    return call.shell.segments.some((segment) => shellSpecifierMatches(specifier, segment.words));
  }
  if (isPathTool(call.toolName)) {
    if (call.paths.length === 0) return true;
    return call.paths.some((path) => pathMatchesSpecifier(path, specifier, call.base));
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
 * fail open never: a shell line is covered only when every simple command in it is covered
 * by some rule and none carries a concern; a path tool only when every path matches.
 */
export function allowRulesCover(
  rules: readonly PermissionRule[],
  call: PreparedCall,
): PermissionRule[] | undefined {
  const applicable = rules.filter((rule) => ruleToolMatches(rule.toolName, call.toolName));
  const whole = applicable.find(
    (rule) => rule.ruleContent === undefined || rule.ruleContent === '*',
  );
  if (whole !== undefined) return [whole];
  if (applicable.length === 0) return undefined;
  if (call.shell !== undefined) {
    const { segments, problem } = call.shell;
    if (problem !== undefined || segments.length === 0) return undefined;
    const used: PermissionRule[] = [];
    for (const segment of segments) {
      if (segment.concerns.length > 0) return undefined;
      const rule = applicable.find((candidate) =>
        shellSpecifierMatches(candidate.ruleContent!, segment.words),
      );
      if (rule === undefined) return undefined;
      if (!used.includes(rule)) used.push(rule);
    }
    return used;
  }
  if (isPathTool(call.toolName)) {
    if (call.paths.length === 0) return undefined;
    const used: PermissionRule[] = [];
    for (const path of call.paths) {
      const rule = applicable.find((candidate) =>
        pathMatchesSpecifier(path, candidate.ruleContent!, call.base),
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
  const concerns = shell.problem === undefined ? [] : [shell.problem];
  for (const segment of shell.segments) concerns.push(...segment.concerns);
  return [...new Set(concerns)];
}
