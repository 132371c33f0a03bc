import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { AgentInputV2Schema, SendMessageInputV2Schema } from './tools-v2.js';

/** Issues as `path: message`, for readable assertions. */
function issuesOf(schema: z.ZodType, input: unknown): string[] {
  const result = schema.safeParse(input);
  return result.success
    ? []
    : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
}

describe('SendMessage input (Claude Code 2.1.330)', () => {
  it('accepts every sensible call', () => {
    for (const input of [
      { to: 'alpha', message: 'hi' },
      { to: 'alpha', summary: 'Say hi', message: 'hi', notify_when_idle: true },
      { to: 'main', message: 'done' },
      { to: 'alpha', message: '{"note":"json that is not a protocol frame"}' },
      { to: 'alpha', message: { type: 'shutdown_request' } },
      { to: 'alpha', message: { type: 'shutdown_request', reason: 'All done' } },
      { to: 'team-lead', message: { type: 'shutdown_response', request_id: 's', approve: true } },
      {
        to: 'team-lead',
        message: { type: 'shutdown_response', request_id: 's', approve: false, reason: 'Busy' },
      },
      { to: 'beta', message: { type: 'plan_approval_response', request_id: 'p', approve: true } },
      {
        to: 'beta',
        message: {
          type: 'plan_approval_response',
          request_id: 'p',
          approve: false,
          feedback: 'Cover the empty case',
        },
      },
    ]) {
      expect(issuesOf(SendMessageInputV2Schema, input), JSON.stringify(input)).toEqual([]);
    }
  });

  it.each([
    [
      { to: '*', message: 'stop' },
      ['to: broadcast (to: "*") is no longer supported — send a message per recipient'],
    ],
    [
      { to: 'alpha@session-c29861cf', message: 'hi' },
      [
        'to: to must be a plain name without "@team": a session has one team, so address the teammate by name',
      ],
    ],
    [{ to: ' ', message: 'hi' }, ['to: to must name the recipient']],
    [{ to: 'alpha', message: '  ' }, ['message: message must not be empty']],
    [
      { to: 'team-lead', message: '{"type":"idle_notification","from":"alpha"}' },
      [
        'message: message must not be a teammate protocol frame written as text: use the structured object form ({type: "shutdown_request" | "shutdown_response" | "plan_approval_response", …})',
      ],
    ],
    [
      { to: 'team-lead', message: '{"type":"teammate_terminated"}' },
      [expect.stringContaining('must not be a teammate protocol frame')],
    ],
    [
      { to: 'alpha', message: { type: 'shutdown_response', request_id: 's', approve: true } },
      ['to: a shutdown_response goes to the lead: set to "team-lead"'],
    ],
    [
      { to: 'team-lead', message: { type: 'shutdown_response', request_id: 's', approve: false } },
      ['message.reason: rejecting a shutdown needs a reason saying why the teammate keeps running'],
    ],
    [
      {
        to: 'team-lead',
        message: { type: 'shutdown_response', request_id: 's', approve: true, reason: 'ok' },
      },
      ['message.reason: an approved shutdown_response carries no reason: drop reason'],
    ],
    [
      { to: 'beta', message: { type: 'plan_approval_response', request_id: 'p', approve: false } },
      ['message.feedback: rejecting a plan needs feedback saying what to change'],
    ],
  ])('refuses %j', (input, expected) => {
    expect(issuesOf(SendMessageInputV2Schema, input)).toEqual(expected);
  });

  it('refuses the 2.1.45 shape and unknown keys', () => {
    expect(
      SendMessageInputV2Schema.safeParse({ type: 'message', recipient: 'alpha', content: 'hi' })
        .success,
    ).toBe(false);
    expect(SendMessageInputV2Schema.safeParse({ to: 'a', message: 'hi', extra: 1 }).success).toBe(
      false,
    );
    expect(
      SendMessageInputV2Schema.safeParse({ to: 'a', message: { type: 'broadcast' } }).success,
    ).toBe(false);
    expect(SendMessageInputV2Schema.safeParse({ to: 'a\nb', message: 'hi' }).success).toBe(false);
    expect(
      SendMessageInputV2Schema.safeParse({ to: 'a', summary: 'x'.repeat(201), message: 'hi' })
        .success,
    ).toBe(false);
  });
});

describe('Agent input (Claude Code 2.1.330)', () => {
  it('accepts a subagent, a teammate, and the ignored team_name and mode', () => {
    for (const input of [
      { description: 'Write tests', prompt: 'Write the tests' },
      {
        description: 'Spawn alpha',
        prompt: 'You are alpha',
        subagent_type: 'general-purpose',
        name: 'alpha',
        team_name: 'conf-team',
        mode: 'auto',
        model: 'fable',
        effort: 'xhigh',
        isolation: 'remote',
      },
    ]) {
      expect(issuesOf(AgentInputV2Schema, input), JSON.stringify(input)).toEqual([]);
    }
  });

  it.each([
    [{ description: 'd', prompt: ' ' }, ['prompt: prompt must not be empty']],
    [
      { description: 'd', prompt: 'p', name: 'team-lead' },
      [
        'name: "team-lead" is reserved (main, team-lead, user, system): choose another teammate name',
      ],
    ],
    [
      { description: 'd', prompt: 'p', name: '-alpha' },
      [
        'name: name must start with a letter or digit and hold at most 64 letters, digits, "_" or "-"',
      ],
    ],
  ])('refuses %j', (input, expected) => {
    expect(issuesOf(AgentInputV2Schema, input)).toEqual(expected);
  });

  it('refuses 2.1.45-only keys (resume, max_turns)', () => {
    expect(
      AgentInputV2Schema.safeParse({ description: 'd', prompt: 'p', resume: 'a1' }).success,
    ).toBe(false);
    expect(
      AgentInputV2Schema.safeParse({ description: 'd', prompt: 'p', max_turns: 3 }).success,
    ).toBe(false);
  });
});
