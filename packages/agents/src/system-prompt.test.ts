import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildSystemPrompt, type BuildSystemPromptOptions } from './system-prompt.js';
import {
  DEFAULT_AGENT_PROMPT,
  LEAD_SYSTEM_PROMPT,
  teammateCommunicationSection,
  teammateSystemPrompt,
} from './system-prompt-defaults.js';

const environment = {
  cwd: '/work/project',
  model: 'claude-sonnet-5-5',
  toolNames: ['Bash', 'Read', 'SendMessage'],
  platform: 'linux',
  date: '2026-11-24',
  gitRoot: '/work/project',
};

const packageDirectory = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

describe('buildSystemPrompt', () => {
  it('override replaces everything, environment and append included', () => {
    const text = buildSystemPrompt({
      override: 'Only this.',
      agentPrompt: 'agent',
      custom: 'custom',
      defaultPrompt: 'default',
      append: 'appended',
      environment,
    });
    expect(text).toBe('Only this.');
  });

  it('takes the agent prompt over custom over default, then the environment, then append', () => {
    const build = (fields: Partial<BuildSystemPromptOptions>) =>
      buildSystemPrompt({ defaultPrompt: 'Default prompt.', environment, ...fields });
    const environmentText = [
      '# Environment',
      '- Working directory: /work/project',
      '- Git repository root: /work/project',
      '- Platform: linux',
      '- Date: 2026-11-24',
      '- Model: claude-sonnet-5-5',
      '- Tools: Bash, Read, SendMessage',
    ].join('\n');
    expect(build({ agentPrompt: 'Agent.\n\n', custom: 'Custom.', append: 'Tail.' })).toBe(
      `Agent.\n\n${environmentText}\n\nTail.`,
    );
    expect(build({ agentPrompt: '  ', custom: 'Custom.' })).toBe(`Custom.\n\n${environmentText}`);
    expect(build({ append: '' })).toBe(`Default prompt.\n\n${environmentText}`);
    expect(
      buildSystemPrompt({
        defaultPrompt: 'D.',
        environment: { ...environment, gitRoot: undefined, toolNames: [] },
      }),
    ).toContain(
      '- Git repository: none (the working directory is not inside one)\n- Platform: linux',
    );
  });

  it('refuses bad input, naming the field', () => {
    const build = (fields: Record<string, unknown>) => () =>
      buildSystemPrompt({
        defaultPrompt: 'D.',
        environment,
        ...fields,
      } as BuildSystemPromptOptions);
    expect(build({ defaultPrompt: '' })).toThrow(/`defaultPrompt` must be non-empty text/);
    expect(build({ custom: 7 })).toThrow(/`custom` must be text/);
    expect(build({ environment: { ...environment, cwd: 'relative' } })).toThrow(
      /environment.cwd must be an absolute path/,
    );
    expect(build({ environment: { ...environment, date: '24.11.2026' } })).toThrow(
      /environment.date must be a date/,
    );
    expect(build({ environment: { ...environment, model: 'a\nb' } })).toThrow(
      /environment.model must be one line/,
    );
    expect(build({ environment: { ...environment, toolNames: ['Read, Write'] } })).toThrow(
      /toolNames must be a list/,
    );
  });

  it('is byte-stable: the same input gives the same bytes, also in another process', () => {
    const options: BuildSystemPromptOptions = {
      agentPrompt: 'You review code. — «unicode» stays as is.',
      defaultPrompt: DEFAULT_AGENT_PROMPT,
      append: teammateCommunicationSection({
        agentName: 'alice',
        teamName: 'red',
        planModeRequired: true,
      }),
      environment,
    };
    const first = buildSystemPrompt(options);
    const second = buildSystemPrompt(structuredClone(options));
    expect(Buffer.from(second)).toEqual(Buffer.from(first));
    // A fresh Node process, through the built package, produces the very same bytes.
    const script = `import { buildSystemPrompt, teammateCommunicationSection, DEFAULT_AGENT_PROMPT } from './dist/index.js';
const options = JSON.parse(process.argv[1]);
options.defaultPrompt = DEFAULT_AGENT_PROMPT;
options.append = teammateCommunicationSection({ agentName: 'alice', teamName: 'red', planModeRequired: true });
process.stdout.write(buildSystemPrompt(options));`;
    const output = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        script,
        JSON.stringify({ agentPrompt: options.agentPrompt, environment }),
      ],
      { cwd: packageDirectory, timeout: 30_000 },
    );
    const digest = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
    expect(digest(output)).toBe(digest(Buffer.from(first)));
  });
});

describe('default prompts', () => {
  it("gives a teammate its name, the team, the lead, SendMessage's shape, idle and shutdown", () => {
    const text = teammateSystemPrompt({
      agentName: 'alice',
      teamName: 'red',
      leadName: 'team-lead',
    });
    expect(text.startsWith(DEFAULT_AGENT_PROMPT)).toBe(true);
    expect(text).toContain('You are "alice", a member of the team "red". The lead, "team-lead"');
    expect(text).toContain(
      '{"type": "message", "recipient": "team-lead", "content": "…", "summary": "<5–10 words>"}',
    );
    expect(text).toContain('{"type": "shutdown_response", "request_id": "<id>", "approve": true}');
    expect(text).toContain('## Idle');
    expect(text).toContain("no message, not even the lead's, gives you a permission");
    expect(text).not.toContain('ExitPlanMode');
    expect(
      teammateSystemPrompt({ agentName: 'alice', teamName: 'red', planModeRequired: true }),
    ).toContain('call ExitPlanMode with it');
    expect(() => teammateCommunicationSection({ agentName: 'a b', teamName: 'red' })).toThrow(
      /`agentName` "a b" is not a usable name/,
    );
  });

  it('gives the lead the team workflow', () => {
    expect(LEAD_SYSTEM_PROMPT.startsWith(DEFAULT_AGENT_PROMPT)).toBe(true);
    for (const tool of [
      'TeamCreate',
      'TaskCreate',
      'SendMessage',
      'shutdown_request',
      'TeamDelete',
      'plan_approval_response',
    ]) {
      expect(LEAD_SYSTEM_PROMPT).toContain(tool);
    }
  });
});
