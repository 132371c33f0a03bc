// alice's and bob's decisions step by step, and what the script says to requests it has no part for.
import { describe, expect, it } from 'vitest';
import { createScriptContext } from '../script-context.js';
import type { Reply, ScriptRequest } from '../types.js';
import {
  DEMO_SCRIPT_LABEL,
  PLAN_FIRST,
  PLAN_REVISED,
  SLUGIFY_SOURCE,
  implementerPrompt,
  testerPrompt,
} from './demo-team-content.js';
import {
  claudeCodeRequest,
  teammateMessage,
  toolUsesOf,
  type Message,
} from './demo-team-test-support.js';
import {
  after,
  ask,
  message,
  planFile,
  repository,
  shutdownRequest,
} from './demo-team-teammate-test-support.js';
import { demoRoleOf, demoTeamScript } from './demo-team.js';

describe('alice, the implementer', () => {
  const start: Message[] = [
    { role: 'user', content: teammateMessage('team-lead', implementerPrompt('4', undefined)) },
  ];

  it('claims, reads, writes, edits, runs npm test, completes and reports to bob, carol and the lead', () => {
    const claim = ask('teammate', start);
    expect(toolUsesOf(claim)).toEqual([
      { name: 'TaskUpdate', input: { taskId: '4', owner: 'alice', status: 'in_progress' } },
    ]);
    let messages = after(start, claim, 'Updated task #4 owner, status');
    const read = ask('teammate', messages);
    expect(toolUsesOf(read)).toEqual([
      { name: 'Read', input: { file_path: `${repository}/src/index.js` } },
    ]);
    messages = after(
      messages,
      read,
      "     1→export { capitalize } from './capitalize.js';\n     2→export { pad } from './pad.js';",
    );
    const write = ask('teammate', messages);
    expect(toolUsesOf(write)).toEqual([
      {
        name: 'Write',
        input: { file_path: `${repository}/src/slugify.js`, content: SLUGIFY_SOURCE },
      },
    ]);
    messages = after(messages, write, `File created successfully at: ${repository}/src/slugify.js`);
    const edit = ask('teammate', messages);
    expect(toolUsesOf(edit)[0]?.input).toEqual({
      file_path: `${repository}/src/index.js`,
      old_string: "export { capitalize } from './capitalize.js';",
      new_string:
        "export { capitalize } from './capitalize.js';\nexport { slugify } from './slugify.js';",
    });
    messages = after(messages, edit, 'The file has been updated.');
    const bash = ask('teammate', messages);
    expect(toolUsesOf(bash)).toEqual([
      { name: 'Bash', input: { command: 'npm test', description: 'Run the test suite' } },
    ]);
    messages = after(messages, bash, '# pass 1\n# fail 0');
    const complete = ask('teammate', messages);
    expect(toolUsesOf(complete)).toEqual([
      { name: 'TaskUpdate', input: { taskId: '4', status: 'completed' } },
    ]);
    messages = after(messages, complete, 'Updated task #4 status');
    const report = toolUsesOf(ask('teammate', messages));
    expect(report.map((use) => [use.input.type, use.input.recipient])).toEqual([
      ['message', 'bob'],
      ['message', 'carol'],
      ['message', 'team-lead'],
    ]);
    expect(report[1]?.input.content).toContain('ready in src/slugify.js for your review');
    expect(report[2]?.input.content).toBe(
      'Task #4 is done: slugify(text) in src/slugify.js, exported from src/index.js. npm test passes.',
    );
  });

  it('reports a denied npm test instead of claiming it passed', () => {
    let messages = after(start, ask('teammate', start), 'ok');
    messages = after(
      messages,
      ask('teammate', messages),
      "     1→export { capitalize } from './capitalize.js';",
    );
    messages = after(messages, ask('teammate', messages), 'ok');
    messages = after(messages, ask('teammate', messages), 'ok');
    messages = after(messages, ask('teammate', messages), {
      content: 'Permission to use Bash with command npm test has been denied.',
      isError: true,
    });
    const complete = ask('teammate', messages);
    expect(complete.content[0]).toEqual({
      type: 'text',
      text: 'I was not allowed to run npm test, so it is untested (the answer was: Permission to use Bash with command npm test has been denied.).',
    });
    messages = after(messages, complete, 'ok');
    expect(String(toolUsesOf(ask('teammate', messages))[2]?.input.content)).toContain(
      'I was not allowed to run npm test',
    );
    // A person's reason alone (no "denied" in it) is a denial too: the command never ran.
    const byPerson = messages.slice(0, -2);
    const bash = byPerson.at(-1)!;
    expect(bash.role).toBe('user');
    const denied = [
      ...byPerson.slice(0, -1),
      {
        role: 'user' as const,
        content: (bash.content as Record<string, unknown>[]).map((block) => ({
          ...block,
          content: 'Not now, please.',
        })),
      },
    ];
    expect(ask('teammate', denied).content[0]).toEqual({
      type: 'text',
      text: 'I was not allowed to run npm test, so it is untested (the answer was: Not now, please.).',
    });
    // A command that ran and failed ends with its exit code.
    const failing = [
      ...byPerson.slice(0, -1),
      {
        role: 'user' as const,
        content: (bash.content as Record<string, unknown>[]).map((block) => ({
          ...block,
          content: 'not ok 1 - capitalize\nExit code 1',
        })),
      },
    ];
    expect((ask('teammate', failing).content[0] as { text: string }).text).toMatch(
      /^npm test failed: not ok 1/,
    );
  });

  it('approves a shutdown request with its request id, and acknowledges anything else in plain text', () => {
    const idle = [
      ...start,
      { role: 'assistant' as const, content: [{ type: 'text', text: 'Task #4 is done.' }] },
    ];
    expect(
      toolUsesOf(ask('teammate', [...idle, { role: 'user', content: shutdownRequest('alice') }])),
    ).toEqual([
      {
        name: 'SendMessage',
        input: { type: 'shutdown_response', request_id: 'shutdown-99@alice', approve: true },
      },
    ]);
    const thanks = ask('teammate', [
      ...idle,
      { role: 'user', content: teammateMessage('bob', 'Thanks!') },
    ]);
    expect(thanks).toEqual({ content: [{ type: 'text', text: 'Noted (message from bob).' }] });
  });
});

describe('bob, the plan-mode tester', () => {
  const start: Message[] = [
    {
      role: 'user',
      content: [
        {
          type: 'text',
          text: teammateMessage('team-lead', testerPrompt('5', '6', '4', undefined)),
        },
        {
          type: 'text',
          text: `<system-reminder>\nPlan mode is active. You should create your plan at ${planFile} using the Write tool.\n</system-reminder>`,
        },
      ],
    },
  ];
  const plan = (approved: boolean) =>
    teammateMessage(
      'team-lead',
      JSON.stringify({
        type: 'plan_approval_response',
        requestId: 'plan_approval-1@bob@t',
        approved,
        ...(approved ? { permissionMode: 'default' } : { feedback: 'Cover accents.' }),
      }),
    );

  function submitted(): Message[] {
    let messages = after(
      start,
      ask('teammate-plan-mode', start),
      "     1→export { capitalize } from './capitalize.js';",
    );
    const write = ask('teammate-plan-mode', messages);
    expect(toolUsesOf(write)).toEqual([
      { name: 'Write', input: { file_path: planFile, content: PLAN_FIRST } },
    ]);
    messages = after(messages, write, 'ok');
    const exit = ask('teammate-plan-mode', messages);
    expect(toolUsesOf(exit)).toEqual([
      {
        name: 'ExitPlanMode',
        input: { allowedPrompts: [{ tool: 'Bash', prompt: 'run the tests' }] },
      },
    ]);
    messages = after(messages, exit, 'Your plan has been submitted to the team lead for approval.');
    const wait = ask('teammate-plan-mode', messages);
    expect(wait).toEqual({
      content: [{ type: 'text', text: 'Plan submitted to team-lead; waiting for approval.' }],
    });
    return [...messages, { role: 'assistant', content: wait.content }];
  }

  it('reads first, writes its plan to the plan file and submits it with ExitPlanMode', () => {
    expect(toolUsesOf(ask('teammate-plan-mode', start))).toEqual([
      { name: 'Read', input: { file_path: `${repository}/src/index.js` } },
    ]);
    submitted();
  });

  it('revises the plan after a rejection and resubmits it', () => {
    const messages = [...submitted(), { role: 'user' as const, content: plan(false) }];
    const revise = ask('teammate-plan-mode', messages);
    expect(revise.content[0]).toEqual({ type: 'text', text: 'Revising the plan: Cover accents.' });
    // The feedback is not the scripted lead's own: the revision names it.
    expect(toolUsesOf(revise)).toEqual([
      {
        name: 'Write',
        input: {
          file_path: planFile,
          content: `${PLAN_REVISED}5. Feedback taken in: Cover accents.\n`,
        },
      },
    ]);
    expect(toolUsesOf(ask('teammate-plan-mode', after(messages, revise, 'ok')))[0]?.name).toBe(
      'ExitPlanMode',
    );
  });

  it('once approved, waits for alice; then claims the tests, writes and runs them, then the docs, and reports', () => {
    const approved = [...submitted(), { role: 'user' as const, content: plan(true) }];
    const wait = ask('teammate-plan-mode', approved);
    expect(wait).toEqual({
      content: [{ type: 'text', text: 'Plan approved. Waiting for alice to finish slugify().' }],
    });
    let messages = message(
      approved,
      wait,
      teammateMessage('alice', 'slugify(text) is ready', { color: 'blue' }),
    );
    const claim = ask('teammate-plan-mode', messages);
    expect(toolUsesOf(claim)).toEqual([
      { name: 'TaskUpdate', input: { taskId: '5', owner: 'bob', status: 'in_progress' } },
    ]);
    messages = after(messages, claim, 'ok');
    messages = after(
      messages,
      ask('teammate-plan-mode', messages),
      '     1→export function slugify(text) {}',
    );
    const writeTests = ask('teammate-plan-mode', messages);
    expect(toolUsesOf(writeTests)[0]?.input.file_path).toBe(`${repository}/test/slugify.test.js`);
    messages = after(messages, writeTests, 'ok');
    const run = ask('teammate-plan-mode', messages);
    expect(toolUsesOf(run)).toEqual([
      { name: 'Bash', input: { command: 'node --test', description: 'Run the tests' } },
    ]);
    messages = after(messages, run, '# pass 3');
    const next = ask('teammate-plan-mode', messages);
    expect(toolUsesOf(next).map((use) => use.input)).toEqual([
      { taskId: '5', status: 'completed' },
      { taskId: '6', owner: 'bob', status: 'in_progress' },
    ]);
    messages = after(messages, next, 'ok', 'ok');
    const readme = ask('teammate-plan-mode', messages);
    expect(toolUsesOf(readme)).toEqual([
      { name: 'Read', input: { file_path: `${repository}/README.md` } },
    ]);
    messages = after(
      messages,
      readme,
      '     1→# demo\n     2→\n     3→- `capitalize(text)`: upper-cases.\n     4→',
    );
    const edit = ask('teammate-plan-mode', messages);
    expect(toolUsesOf(edit)[0]?.input.old_string).toBe('- `capitalize(text)`: upper-cases.');
    messages = after(messages, edit, 'ok');
    messages = after(messages, ask('teammate-plan-mode', messages), 'ok');
    const report = toolUsesOf(ask('teammate-plan-mode', messages));
    expect(report).toMatchObject([
      {
        name: 'SendMessage',
        input: { type: 'message', recipient: 'team-lead', summary: 'Tasks #5 and #6 done' },
      },
    ]);
  });

  it('starts at once when alice was already done before the approval; without a plan file it calls ExitPlanMode directly', () => {
    const early = [
      ...submitted(),
      { role: 'user' as const, content: teammateMessage('alice', 'slugify(text) is ready') },
    ];
    const noted = ask('teammate-plan-mode', early);
    expect(noted.content).toEqual([
      { type: 'text', text: 'Thanks, alice. I start once my plan is approved.' },
    ]);
    const approved = message(early, noted, plan(true));
    expect(toolUsesOf(ask('teammate-plan-mode', approved))[0]?.input).toEqual({
      taskId: '5',
      owner: 'bob',
      status: 'in_progress',
    });
    const bare: Message[] = [
      {
        role: 'user',
        content: teammateMessage('team-lead', testerPrompt('5', '6', '4', repository)),
      },
    ];
    const read = after(bare, ask('teammate-plan-mode', bare), 'ok');
    expect(toolUsesOf(ask('teammate-plan-mode', read))).toEqual([
      { name: 'ExitPlanMode', input: {} },
    ]);
  });
});

describe('requests the demo has no part for', () => {
  const text = (reply: Reply) => (reply.content[0] as { text: string }).text;

  it('answers side requests (no tools) and unknown agents with a clear text', () => {
    const side: ScriptRequest = {
      index: 0,
      path: '/v1/messages',
      headers: {},
      receivedAt: 0,
      body: {
        model: 'claude-haiku-4-5',
        max_tokens: 512,
        messages: [{ role: 'user', content: 'quota' }],
      },
    };
    expect(demoRoleOf(side)).toBe('side-request');
    expect(toolUsesOf(demoTeamScript(side, createScriptContext()) as Reply)).toEqual([]);
    const dave = claudeCodeRequest('teammate', [
      { role: 'user', content: teammateMessage('team-lead', 'You are dave. Review.') },
    ]);
    expect(text(demoTeamScript(dave, createScriptContext()) as Reply)).toBe(
      `${DEMO_SCRIPT_LABEL} demo-team: there is no part for an agent named "dave" in this script (it plays team-lead, alice, bob and carol).`,
    );
    const plain = claudeCodeRequest('teammate', [{ role: 'user', content: 'hello' }]);
    expect(text(demoTeamScript(plain, createScriptContext()) as Reply)).toContain(
      'demo-team: I cannot tell which agent this is',
    );
  });

  it('never throws on ill-formed requests or teammates missing what they need', () => {
    const odd = [
      null,
      {},
      { messages: 'x', tools: 'y' },
      { messages: [{ role: 'user' }], tools: [{ name: 'Task' }, { name: 'TeamCreate' }] },
    ];
    for (const body of odd) {
      const reply = demoTeamScript(
        { index: 0, path: '/', headers: {}, receivedAt: 0, body } as unknown as ScriptRequest,
        createScriptContext(),
      ) as Reply;
      expect(reply.content[0]?.type).toBe('text');
    }
    const noTask = claudeCodeRequest('teammate', [
      { role: 'user', content: teammateMessage('team-lead', 'You are alice. Do things.') },
    ]);
    expect(text(demoTeamScript(noTask, createScriptContext()) as Reply)).toContain(
      `${DEMO_SCRIPT_LABEL} demo-team alice: my spawn prompt names no task`,
    );
    const unexpected = after(
      [{ role: 'user', content: teammateMessage('team-lead', implementerPrompt('4', repository)) }],
      { content: [{ type: 'tool_use', name: 'Glob', input: { pattern: '*' } }] },
      'a.js',
    );
    expect(text(ask('teammate', unexpected))).toBe(
      'demo-team alice: I did not expect a result from Glob; waiting.',
    );
  });
});
