// Bash inside the real loop (@muster/query, the real @anthropic-ai/sdk, the real ToolContext):
// the model is @muster/scripted-model, a TEST DOUBLE. Checks what only the loop can show: the
// agent's environment (which holds the API key) never reaches a command, a turn abort ends the
// command's group, and agent.close() ends background shells. Leftovers are looked up in /proc.
import { realpathSync } from 'node:fs';
import { sequence, text, toolResults, toolUse } from '@muster/scripted-model';
import { makeTempDirectory } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import { createBashTool } from './bash-tool.js';
import { eventually, processesWith, trackSleepTokens } from './bash-tool-test-processes.js';
import {
  openScriptedToolAgent,
  SCRIPTED_API_KEY,
  toolCallEnds,
} from './scripted-agent-test-support.js';

const token = trackSleepTokens();

async function openAgent(script: Parameters<typeof openScriptedToolAgent>[0]) {
  const cwd = realpathSync(await makeTempDirectory('muster-bash-agent-'));
  const transcriptDirectory = await makeTempDirectory('muster-bash-agent-transcript-');
  return openScriptedToolAgent(script, {
    cwd,
    transcriptDirectory,
    allowEverything: true,
    tools: [createBashTool({ outputRoot: transcriptDirectory, killGraceMs: 300 })],
  });
}

describe('Bash through the agent loop', () => {
  it('runs the command without the API key; what it left running is ended before the result comes back', async () => {
    const seconds = token();
    const seen: string[] = [];
    const { agent, run } = await openAgent(
      sequence([
        toolUse('Bash', { command: `env; sleep ${seconds} & echo started`, description: 'env' }),
        (request) => {
          seen.push(toolResults(request)[0]?.content ?? '');
          seen.push(String(processesWith(seconds).length));
          return text('Done.');
        },
      ]),
    );
    try {
      const { result } = await run('Show the environment.');
      expect(result.reason).toBe('completed');
      const [output, leftoversWhenModelSawResult] = seen;
      expect(output).toContain('started');
      expect(output).toContain('PATH=');
      expect(output).not.toContain(SCRIPTED_API_KEY);
      expect(output).not.toContain('ANTHROPIC_API_KEY');
      expect(output).toMatch(/left 1 process\(es\) running when it returned; muster ended them/);
      expect(leftoversWhenModelSawResult).toBe('0');
    } finally {
      await agent.close();
    }
  });

  it('turn.abort() ends a running command’s whole group; the agent takes its next turn', async () => {
    const seconds = token();
    const { agent } = await openAgent(
      sequence([
        toolUse('Bash', { command: `trap '' TERM; sleep ${seconds} & sleep ${seconds}; wait` }),
        text('Second turn.'),
      ]),
    );
    try {
      const turn = agent.send('Run it.');
      expect(await eventually(() => processesWith(seconds).length >= 2)).toBe(true);
      turn.abort('the person pressed Escape');
      const result = await turn.result;
      expect(result.reason).toBe('aborted');
      // The loop need not wait for the tool; the group got SIGKILL during turn.abort() itself.
      expect(await eventually(() => processesWith(seconds).length === 0)).toBe(true);
      const next = agent.send('Go on.');
      expect((await next.result).text).toBe('Second turn.');
    } finally {
      await agent.close();
    }
  });

  it('a background shell outlives its turn and dies with agent.close()', async () => {
    const seconds = token();
    const { agent, run } = await openAgent(
      sequence([
        toolUse('Bash', {
          command: `sleep ${seconds} & sleep ${seconds}`,
          run_in_background: true,
        }),
        text('Started it.'),
      ]),
    );
    let closed = false;
    try {
      const { result, events } = await run('Start the server.');
      expect(result.reason).toBe('completed');
      expect(toolCallEnds(events)[0]?.resultText).toMatch(/background with id bash-1/);
      expect(await eventually(() => processesWith(seconds).length >= 2)).toBe(true);
      await agent.close();
      closed = true;
      expect(processesWith(seconds)).toEqual([]);
    } finally {
      if (!closed) await agent.close();
    }
  });
});
