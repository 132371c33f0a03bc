// `muster doctor` on a team that createTeamRuntime (@muster/agents) is running: in the middle of
// the work — teammates spawned, a task done, a plan waiting for the person, signed lead entries,
// idle notifications, the runtime sidecar and the audit log — every file passes the doctor.
// Models: @muster/scripted-model, a TEST DOUBLE of the Messages API, behind the real SDK.
import path from 'node:path';
import { createTeamRuntime, type TeamEvent } from '@muster/agents';
import { createInProcessBackend } from '@muster/backends';
import { createModelClient } from '@muster/query';
import {
  createScriptedFetch,
  type Reply,
  type Script,
  type ScriptRequest,
} from '@muster/scripted-model';
import { createTaskStore } from '@muster/tasks';
import { makeTempDirectory } from '@muster/test-utils';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from '../test-support/reference.js';
import { jsonOf, runMuster } from '../test-support/run-cli.js';

beforeAll(assertBuilt);

const say = (text: string): Reply => ({ content: [{ type: 'text', text }] });
const call = (name: string, input: Record<string, unknown>): Reply => ({
  content: [{ type: 'tool_use', name, input }],
});

function lastText(request: ScriptRequest): string {
  const content = (request.body.messages as Array<{ content: unknown }>).at(-1)!.content;
  if (typeof content === 'string') return content;
  return (content as Array<{ type: string; text?: string; content?: unknown }>)
    .map((block) => (block.type === 'text' ? (block.text ?? '') : JSON.stringify(block.content)))
    .join('\n');
}

function client(script: Script) {
  return createModelClient({
    apiKey: 'sk-test-doctor-0123456789',
    baseURL: 'http://scripted-model.invalid',
    retryBaseMs: 1,
    fetch: createScriptedFetch({ script }),
  });
}

describe('muster doctor on a team at work', () => {
  it('finds nothing wrong while createTeamRuntime runs the team', async () => {
    const root = await makeTempDirectory('muster-doctor-runtime-');
    const cwd = await makeTempDirectory('muster-doctor-runtime-cwd-');
    const planFile = path.join(root, 'plans', 'docs-bob.md');
    const steps = [
      call('TeamCreate', { team_name: 'docs', description: 'Write the docs' }),
      call('TaskCreate', {
        subject: 'Write the intro',
        description: 'Write it.',
        activeForm: 'Writing the intro',
      }),
      call('TaskCreate', {
        subject: 'Review the intro',
        description: 'Review it.',
        activeForm: 'Reviewing',
      }),
      call('TaskUpdate', { taskId: '2', addBlockedBy: ['1'] }),
      call('Task', {
        description: 'Writer',
        prompt: 'Take tasks from the list.',
        subagent_type: 'general-purpose',
        name: 'alice',
        team_name: 'docs',
      }),
      call('Task', {
        description: 'Reviewer',
        prompt: 'Plan the review.',
        subagent_type: 'general-purpose',
        name: 'bob',
        team_name: 'docs',
        mode: 'plan',
      }),
    ];
    const lead: Script = () => steps.shift() ?? say('The team is at work.');
    const teammate: Script = (request) => {
      const text = lastText(request);
      const system = JSON.stringify(request.body.system);
      const previous = JSON.stringify((request.body.messages as unknown[]).at(-2) ?? '');
      if (system.includes('You are \\"bob\\"')) {
        if (previous.includes('"name":"Write"')) return call('ExitPlanMode', {});
        if (text.includes('Plan the review'))
          return call('Write', { file_path: planFile, content: '1. Read the intro.\n' });
        return say('Waiting for the plan answer.');
      }
      if (/You took task #1 /.test(text))
        return call('TaskUpdate', { taskId: '1', status: 'completed' });
      return say('Done.');
    };
    const events: TeamEvent[] = [];
    const runtime = await createTeamRuntime({
      root,
      cwd,
      client: client(lead),
      teammateClient: client(teammate),
      model: 'claude-test-model',
      homeDirectory: cwd,
      environment: { PATH: process.env.PATH },
      backends: [createInProcessBackend({ processReaper: false })],
      planApproval: 'person',
      onEvent: (event) => events.push(event),
    });
    try {
      await runtime.prompt('Start the docs team.');
      const tasks = createTaskStore({ root, team: 'docs' });
      const deadline = Date.now() + 30_000;
      while (!(
        events.some((event) => event.type === 'ask' && event.kind === 'plan') &&
        (await tasks.get('1'))?.status === 'completed'
      )) {
        if (Date.now() > deadline)
          throw new Error(
            `the team did not get going: ${JSON.stringify(events.filter((event) => event.type !== 'agent'))}`,
          );
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const doctor = await runMuster(['doctor', '--root', root, '--json']);
      const report = jsonOf<{
        ok: boolean;
        teams: string[];
        filesChecked: number;
        findings: Array<{ severity: string; file: string; message: string }>;
      }>(doctor);
      expect(report.findings.filter((finding) => finding.severity === 'error')).toEqual([]);
      expect(report.teams).toEqual(['docs']);
      // config, three inboxes, two tasks and the runtime sidecar at least
      expect(report.filesChecked).toBeGreaterThanOrEqual(7);
      expect(report.ok).toBe(true);
      expect(doctor.code, doctor.stdout + doctor.stderr).toBe(0);
    } finally {
      await runtime.close();
    }
  }, 60_000);
});
