// Asks in a lead's team session: the lead's own permission asks, a teammate's permission
// requests and a teammate's plan, answered by the person (the test) or by the headless
// policy. Models are @muster/scripted-model, a TEST DOUBLE of the Messages API.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { auditLogPath } from '@muster/permissions';
import type { Script, ScriptRequest } from '@muster/scripted-model';
import { describe, expect, it } from 'vitest';
import {
  call,
  lastText,
  openTestRuntime,
  previousTool,
  say,
  until,
} from './team-runtime-test-support.js';
import type { TeamEvent } from './team-event.js';
import type { TeamRuntimeOptions } from './team-runtime-options.js';

/** A lead that creates "crew" and spawns alice with `prompt` (in `mode`), then only notes what it hears. */
function spawningLead(prompt: string, mode?: string): Script {
  return (request: ScriptRequest) => {
    const previous = previousTool(request);
    if (previous === 'TeamCreate') {
      return call('Task', {
        description: 'Work',
        prompt,
        subagent_type: 'general-purpose',
        name: 'alice',
        team_name: 'crew',
        ...(mode === undefined ? {} : { mode }),
      });
    }
    if (previous !== undefined) return say('Done with that.');
    if (lastText(request).includes('Start')) return call('TeamCreate', { team_name: 'crew' });
    return say('Noted.');
  };
}

/** A runtime whose teammates' model is `alice`; asks go to the person (the test) unless `options` says otherwise. */
async function open(lead: Script, alice: Script, options: Partial<TeamRuntimeOptions> = {}) {
  const opened = await openTestRuntime(lead, alice, { askPolicy: 'person', ...options });
  return { ...opened, aliceRequests: opened.teammateRequests };
}

const askOf = (
  events: TeamEvent[],
  predicate: (ask: Extract<TeamEvent, { type: 'ask' }>) => boolean,
) =>
  events.find(
    (event): event is Extract<TeamEvent, { type: 'ask' }> =>
      event.type === 'ask' && predicate(event),
  );

describe('team runtime asks', () => {
  it("asks the person about the lead's own tool call: a denial reaches the model, an approval runs it", async () => {
    const lead: Script = (request) => {
      const text = lastText(request);
      if (text.includes('Not that one')) return call('Bash', { command: 'touch second.txt' });
      if (previousTool(request) === 'Bash') return say('Both asked.');
      return call('Bash', { command: 'touch first.txt' });
    };
    const { runtime, events, cwd } = await open(lead, () => say('unused'), { askPolicy: 'person' });
    const turn = runtime.prompt('Make two files.');
    const first = await until('the first ask', () =>
      askOf(events, (ask) => ask.input?.command === 'touch first.txt'),
    );
    expect(first).toMatchObject({ kind: 'permission', agentName: 'team-lead', toolName: 'Bash' });
    expect(runtime.pendingAsks().map((ask) => ask.askId)).toEqual([first.askId]);
    await runtime.answer(first.askId, { behavior: 'deny', message: 'Not that one.' });
    const second = await until('the second ask', () =>
      askOf(events, (ask) => ask.input?.command === 'touch second.txt'),
    );
    await runtime.answer(second.askId, { behavior: 'allow' });
    const result = await turn;
    expect(result.reason).toBe('completed');
    expect(existsSync(join(cwd, 'first.txt'))).toBe(false);
    expect(existsSync(join(cwd, 'second.txt'))).toBe(true);
    await expect(runtime.answer(first.askId, { behavior: 'allow' })).rejects.toThrow(
      /No ask .* is waiting/,
    );
    expect(
      events
        .filter((event) => event.type === 'ask_answer')
        .map((event) => (event as { behavior: string }).behavior),
    ).toEqual(['deny', 'allow']);
  }, 60_000);

  it('a built-in Explore subagent of the lead runs in plan mode: its writing Bash is refused, never asked', async () => {
    const lead: Script = (request) => {
      const text = lastText(request);
      const previous = previousTool(request);
      if (previous === 'Bash') return say('Explored.');
      if (text.includes('Look around and touch probe.txt'))
        return call('Bash', { command: 'touch probe.txt' });
      if (previous === 'Task') return say('The explorer reported.');
      return call('Task', {
        description: 'Explore',
        prompt: 'Look around and touch probe.txt.',
        subagent_type: 'Explore',
      });
    };
    const { runtime, events, cwd } = await open(lead, () => say('unused'));
    // Were it asked, the person would allow it: only the plan mode can keep the file from existing.
    runtime.subscribe((event) => {
      if (event.type === 'ask') void runtime.answer(event.askId, { behavior: 'allow' });
    });
    const result = await runtime.prompt('Explore the project.');
    expect(result.reason).toBe('completed');
    expect(existsSync(join(cwd, 'probe.txt'))).toBe(false);
    expect(events.filter((event) => event.type === 'ask')).toEqual([]);
  }, 60_000);

  it("routes a teammate's permission requests to the person: one approved, one denied", async () => {
    const alice: Script = (request) => {
      const text = lastText(request);
      if (previousTool(request) === 'Bash' && text.includes('b.txt')) return say('Finished.');
      if (previousTool(request) === 'Bash') return call('Bash', { command: 'touch b.txt' });
      if (text.includes('Touch two files')) return call('Bash', { command: 'touch a.txt' });
      return say('Waiting.');
    };
    const { runtime, events, cwd, aliceRequests } = await open(
      spawningLead('Touch two files.'),
      alice,
      { askPolicy: 'person' },
    );
    await runtime.prompt('Start.');
    const first = await until('alice asks about a.txt', () =>
      askOf(events, (ask) => ask.input?.command === 'touch a.txt'),
    );
    expect(first).toMatchObject({ kind: 'permission', agentName: 'alice', toolName: 'Bash' });
    await runtime.answer(first.askId, { behavior: 'allow' });
    const second = await until('alice asks about b.txt', () =>
      askOf(events, (ask) => ask.input?.command === 'touch b.txt'),
    );
    await runtime.answer(second.askId, { behavior: 'deny', message: 'Leave b alone.' });
    await until('alice reads the denial', () =>
      aliceRequests.some((request) => lastText(request).includes('Leave b alone.'))
        ? true
        : undefined,
    );
    expect(existsSync(join(cwd, 'a.txt'))).toBe(true);
    expect(existsSync(join(cwd, 'b.txt'))).toBe(false);
  }, 60_000);

  it("headless: a teammate's request the lead's rules do not allow is denied and audited", async () => {
    const alice: Script = (request) => {
      if (previousTool(request) === 'Bash') return say('Finished.');
      if (lastText(request).includes('Touch a file'))
        return call('Bash', { command: 'touch c.txt' });
      return say('Waiting.');
    };
    const { runtime, events, root, cwd, aliceRequests } = await open(
      spawningLead('Touch a file.'),
      alice,
      { askPolicy: 'headless' },
    );
    await runtime.prompt('Start.');
    await until('alice reads the denial', () =>
      aliceRequests.some((request) => lastText(request).includes('no person is there'))
        ? true
        : undefined,
    );
    expect(existsSync(join(cwd, 'c.txt'))).toBe(false);
    const answer = events.find((event) => event.type === 'ask_answer');
    expect(answer).toMatchObject({ behavior: 'deny', by: 'headless policy' });
    const audit = await readFile(auditLogPath(root, 'crew'), 'utf8');
    expect(audit).toContain('permission_denied');
  }, 60_000);

  it("a person rejects a teammate's plan with feedback, then approves the revised one", async () => {
    let planFile = '';
    const alice: Script = (request) => {
      const text = lastText(request);
      const previous = previousTool(request);
      if (previous === 'Write') return call('ExitPlanMode', {});
      if (previous === 'ExitPlanMode') return say('Waiting for the lead.');
      if (text.includes('[Plan Approved]')) return say('Approved: working now.');
      if (text.includes('[Plan Rejected]'))
        return call('Write', { file_path: planFile, content: '1. Build it.\n2. Test it.\n' });
      if (text.includes('Plan the work'))
        return call('Write', { file_path: planFile, content: '1. Build it.\n' });
      return say('Waiting.');
    };
    const { runtime, events, root, aliceRequests } = await open(
      spawningLead('Plan the work.', 'plan'),
      alice,
      {
        askPolicy: 'person',
        planApproval: 'person',
      },
    );
    planFile = join(root, 'plans', 'crew-alice.md');
    await runtime.prompt('Start.');
    const first = await until('the first plan', () => askOf(events, (ask) => ask.kind === 'plan'));
    expect(first).toMatchObject({ agentName: 'alice', description: '1. Build it.\n' });
    await runtime.answer(first.askId, { behavior: 'deny', message: 'Add a test step.' });
    await until('alice reads the rejection', () =>
      aliceRequests.some((request) =>
        lastText(request).includes('[Plan Rejected] Add a test step.'),
      )
        ? true
        : undefined,
    );
    const second = await until('the revised plan', () =>
      askOf(events, (ask) => ask.kind === 'plan' && ask.askId !== first.askId),
    );
    expect(second.description).toBe('1. Build it.\n2. Test it.\n');
    await runtime.answer(second.askId, { behavior: 'allow' });
    await until('alice reads the approval', () =>
      aliceRequests.some((request) => lastText(request).includes('[Plan Approved]'))
        ? true
        : undefined,
    );
  }, 60_000);
});
