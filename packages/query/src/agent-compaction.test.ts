// Compaction and transcripts through createAgent, against the scripted model (a TEST DOUBLE)
// through the real SDK: model_context_window_exceeded → compact and retry once (R7), the
// threshold, preserved team state, and a transcript with no secret in it.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { makeTempDirectory } from '@muster/test-utils';
import {
  fault,
  sequence,
  text,
  toolUse,
  type Script,
  type ScriptRequest,
} from '@muster/scripted-model';
import { describe, expect, it } from 'vitest';
import {
  collect,
  eventsOf,
  expectValidConversations,
  openScriptedAgent,
  recordingTool,
  TEST_API_KEY,
  withoutMarkers,
} from './agent-test-support.js';
import { COMPACTION_INSTRUCTION } from './compaction.js';
import { readTranscript } from './transcript-reader.js';

const PRESERVED = 'You are tester in team test-team. Your lead is team-lead. Your task is #3.';

function isSummaryRequest(request: ScriptRequest): boolean {
  return JSON.stringify(request.body.messages).includes(COMPACTION_INSTRUCTION.slice(0, 40));
}

/** Answers summary requests with a summary and the others with `work` (by their own count). */
function withSummaries(work: Parameters<typeof sequence>[0]): Script {
  const agentSteps = sequence(work, { keyOf: () => 'agent' });
  return (request, context) =>
    isSummaryRequest(request)
      ? text('The user asked for a report; nothing is done yet.')
      : agentSteps(request, context);
}

describe('compaction', () => {
  it('R7: model_context_window_exceeded compacts the conversation and sends it again once', async () => {
    const script = withSummaries([
      text('', { stopReason: 'model_context_window_exceeded' }),
      text('Report written.'),
    ]);
    const { agent, scriptedFetch } = openScriptedAgent(script, {
      compaction: { thresholdTokens: 1_000_000, preservedContext: () => PRESERVED },
    });
    const { events, result } = await collect(agent.send('Write the report'));
    expect(result).toMatchObject({ reason: 'completed', text: 'Report written.', requests: 2 });
    expect(eventsOf(events, 'compaction')).toEqual([
      expect.objectContaining({ summary: 'The user asked for a report; nothing is done yet.' }),
    ]);
    const requests = scriptedFetch.requests();
    expect(requests.map(isSummaryRequest)).toEqual([false, true, false]);
    const resent = withoutMarkers(requests[2]!.body.messages);
    expect(resent).toHaveLength(1);
    expect(JSON.stringify(resent[0])).toContain(PRESERVED);
    expect(JSON.stringify(resent[0])).toContain('nothing is done yet');
    expect(agent.messages()).toHaveLength(2);
    // The summary request's usage counts too (R8).
    expect(agent.requestUsage()).toHaveLength(3);
    await agent.close();
  });

  it('R7: a conversation too long even to summarise is compacted part by part, keeping every part', async () => {
    const limit = 2_500;
    const tags = [0, 1, 2, 3, 4, 5].map((index) => `tag-${index}-${'x'.repeat(300)}`);
    const agentSteps = sequence(
      [
        ...tags.map((tag) => toolUse('Echo', { tag })),
        text('', { stopReason: 'model_context_window_exceeded' }),
        text('Report written.'),
      ],
      { keyOf: () => 'agent' },
    );
    const script: Script = (request, context) => {
      if (!isSummaryRequest(request)) return agentSteps(request, context);
      const shown = JSON.stringify(request.body.messages);
      if (shown.length > limit) {
        return fault('http-error', {
          status: 400,
          errorType: 'invalid_request_error',
          message: `prompt is too long: ${shown.length} > ${limit}`,
        });
      }
      return text(`Echoed ${[...new Set(shown.match(/tag-\d/g))].sort().join(', ')}.`);
    };
    const { agent, scriptedFetch } = openScriptedAgent(script, {
      tools: [recordingTool('Echo')],
      compaction: { thresholdTokens: 1_000_000, preservedContext: () => PRESERVED },
    });
    const { events, result } = await collect(agent.send('Echo six tags, then report'));
    expect(result).toMatchObject({ reason: 'completed', text: 'Report written.' });
    const [compaction] = eventsOf(events, 'compaction');
    expect(compaction!.summary).toBe('Echoed tag-0, tag-1, tag-2, tag-3, tag-4, tag-5.');
    const summaryRequests = scriptedFetch.requests().filter(isSummaryRequest);
    expect(summaryRequests.length).toBeGreaterThan(2);
    const resent = JSON.stringify(scriptedFetch.requests().at(-1)!.body.messages);
    expect(resent).toContain('Echoed tag-0, tag-1, tag-2, tag-3, tag-4, tag-5.');
    expectValidConversations(scriptedFetch);
    await agent.close();
  });

  it('R7: a second model_context_window_exceeded in the same turn fails it loudly', async () => {
    const tooLong = () => text('', { stopReason: 'model_context_window_exceeded' });
    const { agent } = openScriptedAgent(withSummaries([tooLong(), tooLong()]), {
      compaction: { thresholdTokens: 1_000_000 },
    });
    const { result } = await collect(agent.send('go'));
    expect(result.reason).toBe('failed');
    expect(result.error).toMatchObject({ code: 'CONTEXT_WINDOW_EXCEEDED' });
    expect(result.error!.message).toMatch(/after compacting it once/);
    await agent.close();
  });

  it('compacts before a request whose estimated prompt passes the threshold; team state survives', async () => {
    const script = withSummaries([
      toolUse('Echo', { tag: 'x'.repeat(4_000) }),
      text('First done.'),
      text('Second done.'),
    ]);
    const { agent, scriptedFetch } = openScriptedAgent(script, {
      tools: [recordingTool('Echo')],
      compaction: { thresholdTokens: 1_500, preservedContext: () => PRESERVED },
    });
    const first = await collect(agent.send('first'));
    expect(first.result.reason).toBe('completed');
    const compactions = eventsOf(first.events, 'compaction');
    expect(compactions).toHaveLength(1);
    expect(compactions[0]!.tokensBefore).toBeGreaterThan(1_500);
    expect(compactions[0]!.tokensAfter).toBeLessThan(compactions[0]!.tokensBefore);
    const afterCompaction = withoutMarkers(scriptedFetch.requests().at(-1)!.body.messages);
    expect(afterCompaction).toHaveLength(1);
    expect(JSON.stringify(afterCompaction)).toContain(PRESERVED);
    expect((await collect(agent.send('second'))).result.text).toBe('Second done.');
    expectValidConversations(scriptedFetch);
    await agent.close();
  });
});

describe('the transcript', () => {
  it('holds every message as it happened, reads back to the conversation, and never a secret', async () => {
    const directory = await makeTempDirectory();
    const transcriptPath = path.join(directory, 'agents', 'tester.jsonl');
    const leaky = recordingTool('Env', {
      run: async () => ({ content: `ANTHROPIC_API_KEY=${TEST_API_KEY}` }),
    });
    const script = sequence([toolUse('Env', { tag: 'x' }), text('Done.')], {
      keyOf: () => 'agent',
    });
    // The key is only the client's here (not in the environment): the redactor takes it from the client.
    const { agent } = openScriptedAgent(script, {
      tools: [leaky],
      transcriptPath,
      environment: { PATH: '/usr/bin:/bin' },
    });
    await collect(agent.send(`my key is ${TEST_API_KEY}`));
    await agent.close();
    const raw = readFileSync(transcriptPath, 'utf8');
    expect(raw).not.toContain(TEST_API_KEY);
    expect(raw).toContain('[redacted]');
    const contents = readTranscript(transcriptPath);
    expect(contents.agent).toEqual({
      identity: { name: 'tester', id: 'tester@test-team', teamName: 'test-team' },
      model: 'claude-test-model',
    });
    expect(contents.messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    expect(JSON.stringify(contents.messages)).toBe(
      JSON.stringify(agent.messages()).split(TEST_API_KEY).join('[redacted]'),
    );
    const assistant = contents.entries.filter(
      (entry) => entry.type === 'message' && entry.role === 'assistant',
    );
    expect(assistant.map((entry) => (entry as { stopReason?: string }).stopReason)).toEqual([
      'tool_use',
      'end_turn',
    ]);
    expect(contents.skipped).toEqual([]);
  });

  it('reads back after an aborted turn as the conversation the agent holds, and resumes from it', async () => {
    const directory = await makeTempDirectory();
    const transcriptPath = path.join(directory, 'tester.jsonl');
    const script = sequence(
      [fault('silence-after-headers'), text('Back.'), text('Resumed fine.')],
      {
        keyOf: () => 'agent',
      },
    );
    const { agent } = openScriptedAgent(script, { transcriptPath });
    const turn = agent.send('Hello?');
    for await (const event of turn)
      if (event.type === 'request_start') setTimeout(() => turn.abort(), 20);
    expect((await turn.result).reason).toBe('aborted');
    await collect(agent.send('Still there?'));
    await agent.close();
    const { messages } = readTranscript(transcriptPath);
    expect(messages).toEqual(agent.messages());
    const resumed = openScriptedAgent(() => text('Resumed fine.'), { messages });
    expect((await collect(resumed.agent.send('And now?'))).result.reason).toBe('completed');
    await resumed.agent.close();
  });
});
