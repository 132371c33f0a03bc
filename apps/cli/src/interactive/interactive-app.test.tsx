// The interactive app over a real team runtime (createTeamRuntime, an in-process teammate, real
// files and a real `Bash`), drawn by ink-testing-library and driven by keys: the person's
// prompt, a teammate's permission request answered, the teammate's live transcript, a message to
// it, and Ctrl-C ending the session. Models: @muster/scripted-model, a TEST DOUBLE.
import { createTeamRuntime, type TeamRuntime } from '@muster/agents';
import { createInProcessBackend } from '@muster/backends';
import { createModelClient } from '@muster/query';
import {
  createScriptedFetch,
  type Reply,
  type Script,
  type ScriptRequest,
} from '@muster/scripted-model';
import { makeTempDirectory } from '@muster/test-utils';
import { render } from 'ink-testing-library';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { PLAIN_STYLE } from '../terminal-style.js';
import { InteractiveApp } from './interactive-app.js';
import { createSessionEnding } from './session-ending.js';
import { initialSessionModel } from './session-model.js';

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
    apiKey: 'sk-test-interactive-0123456789',
    baseURL: 'http://scripted-model.invalid',
    retryBaseMs: 1,
    fetch: createScriptedFetch({ script }),
  });
}

const runtimes: TeamRuntime[] = [];
afterEach(async () => {
  for (const runtime of runtimes.splice(0)) await runtime.close();
});

/** Waits (up to 20 s) until the last frame satisfies the check; returns it. */
async function frameWhere(
  lastFrame: () => string | undefined,
  what: string,
  check: (frame: string) => boolean,
): Promise<string> {
  for (let waited = 0; waited < 20_000; waited += 25) {
    const frame = lastFrame() ?? '';
    if (check(frame)) return frame;
    await sleep(25);
  }
  throw new Error(`${what} never showed. Last frame:\n${lastFrame() ?? ''}`);
}

describe('the interactive app over a real team runtime', () => {
  it('prompt, a teammate asks and is allowed, its transcript, a message to it, Ctrl-C ends the session', async () => {
    const cwd = await makeTempDirectory('muster-interactive-app-cwd-');
    const root = await makeTempDirectory('muster-interactive-app-root-');
    const leadSteps = [
      call('TeamCreate', { team_name: 'app-team', description: 'Try the app' }),
      call('Task', {
        description: 'Helper',
        prompt: 'Run echo.',
        subagent_type: 'general-purpose',
        name: 'alice',
        team_name: 'app-team',
      }),
    ];
    const lead: Script = () => leadSteps.shift() ?? say('alice is on it.');
    const teammate: Script = (request) => {
      const text = lastText(request);
      if (text.includes('Thanks, alice')) return say('You are welcome.');
      if (text.includes('from-alice')) return say('echo ran.');
      if (!JSON.stringify(request.body.messages).includes('tee alice.txt')) {
        return call('Bash', { command: 'echo from-alice | tee alice.txt', description: 'Say it' });
      }
      return say('Idle.');
    };
    const runtime = await createTeamRuntime({
      root,
      cwd,
      client: client(lead),
      teammateClient: client(teammate),
      model: 'claude-test-model',
      homeDirectory: cwd,
      environment: { PATH: process.env.PATH },
      backends: [createInProcessBackend({ processReaper: false })],
      askPolicy: 'person',
      planApproval: 'person',
    });
    runtimes.push(runtime);
    const ending = createSessionEnding({ runtime, deadlineMs: 2_000 });
    const { lastFrame, stdin, unmount } = render(
      <InteractiveApp
        runtime={runtime}
        ending={ending}
        style={PLAIN_STYLE}
        initialModel={initialSessionModel({
          scriptedDemo: false,
          model: 'claude-test-model',
          permissionMode: 'default',
        })}
        initialInput="Start the team."
      />,
    );
    try {
      await frameWhere(lastFrame, 'the prompt line', (frame) =>
        frame.includes('lead> Start the team.'),
      );
      stdin.write('\r');
      const asked = await frameWhere(lastFrame, "alice's ask", (frame) =>
        frame.includes('[alice] asks to use Bash'),
      );
      expect(asked).toMatch(/>0 team-lead/);
      expect(asked).toMatch(/1 alice\s+in-process/);
      expect(asked).toContain('command: echo from-alice | tee alice.txt');
      expect(runtime.pendingAsks().map((ask) => ask.agentName)).toEqual(['alice']);
      stdin.write('y');
      await frameWhere(lastFrame, 'the answer', (frame) => !frame.includes('[alice] asks'));
      stdin.write('\t');
      const transcript = await frameWhere(lastFrame, "alice's transcript", (frame) =>
        frame.includes('echo ran.'),
      );
      expect(transcript).toContain('- alice (in-process): its conversation, live');
      expect(transcript).toContain('* Bash(echo from-alice | tee alice.txt) [ok]');
      expect(transcript).toContain('Bash allowed by person');
      stdin.write('\u000f'); // Ctrl-O: the results
      await frameWhere(lastFrame, 'the tool result', (frame) => /\| from-alice/.test(frame));
      stdin.write('Thanks, alice');
      stdin.write('\r');
      await frameWhere(
        lastFrame,
        'the message and its answer',
        (frame) =>
          frame.includes('team-lead -> alice: Thanks, alice') && frame.includes('You are welcome.'),
      );
      stdin.write('\u0003'); // Ctrl-C
      const outcome = await ending.done;
      expect(outcome.trigger).toBe('Ctrl-C');
      expect(outcome.forced).toBe(false);
      expect([...(outcome.report?.approved ?? []), ...(outcome.report?.killed ?? [])]).toEqual([
        'alice',
      ]);
      expect(runtime.members().every((member) => !member.alive)).toBe(true);
    } finally {
      unmount();
    }
  }, 60_000);
});
