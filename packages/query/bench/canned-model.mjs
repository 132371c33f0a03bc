// A canned model for bench/run.mjs: a TEST DOUBLE of the Messages API whose `fetch` answers each
// request with a server-sent-event body encoded once, before anything is timed. It reads nothing
// of the request and computes nothing, so a turn over it costs the SDK's and muster's work only.
// Each turn's request bodies are kept so the same requests can be replayed through the raw SDK on
// the same canned bodies: the turn's time minus the replay's time is muster's own cost.
import Anthropic from '@anthropic-ai/sdk';
import { PerformanceObserver, performance } from 'node:perf_hooks';
import { TextEncoder } from 'node:util';
import { createAgent, createModelClient } from '../dist/index.js';

const BASE_URL = 'http://canned-model.invalid';

/** The SSE body of one streamed response with `content` blocks and `stopReason`, encoded once. */
export function encodeStream(id, content, stopReason) {
  const frames = [
    [
      'message_start',
      {
        type: 'message_start',
        message: {
          id,
          type: 'message',
          role: 'assistant',
          model: 'claude-bench-model',
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 12, output_tokens: 1 },
        },
      },
    ],
  ];
  content.forEach((block, index) => {
    if (block.type === 'text') {
      frames.push(
        [
          'content_block_start',
          { type: 'content_block_start', index, content_block: { type: 'text', text: '' } },
        ],
        [
          'content_block_delta',
          { type: 'content_block_delta', index, delta: { type: 'text_delta', text: block.text } },
        ],
      );
    } else {
      frames.push(
        [
          'content_block_start',
          {
            type: 'content_block_start',
            index,
            content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
          },
        ],
        [
          'content_block_delta',
          {
            type: 'content_block_delta',
            index,
            delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) },
          },
        ],
      );
    }
    frames.push(['content_block_stop', { type: 'content_block_stop', index }]);
  });
  frames.push(
    [
      'message_delta',
      {
        type: 'message_delta',
        delta: { stop_reason: stopReason, stop_sequence: null },
        usage: { output_tokens: 5 },
      },
    ],
    ['message_stop', { type: 'message_stop' }],
  );
  return new TextEncoder().encode(
    frames.map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`).join(''),
  );
}

/**
 * The canned bodies of `turns` turns with `calls` parallel tool calls each: a turn is one
 * response (`end_turn`, "Done.") without calls, else a `tool_use` response with `calls` calls
 * (ids unique in the conversation) followed by the "Done." response.
 */
export function cannedTurns(calls, turns, toolName) {
  const done = encodeStream('msg_done', [{ type: 'text', text: 'Done.' }], 'end_turn');
  return Array.from({ length: turns }, (_unused, turn) => {
    if (calls === 0) return [done];
    const uses = Array.from({ length: calls }, (_unusedCall, call) => ({
      type: 'tool_use',
      id: `toolu_bench_${turn}_${call}`,
      name: toolName,
      input: { tag: `call-${turn}-${call}` },
    }));
    return [encodeStream(`msg_tools_${turn}`, uses, 'tool_use'), done];
  });
}

/** A `fetch` that answers with `next()`'s body and keeps every request body it was sent. */
function cannedFetch(next, sent) {
  return async (_url, init) => {
    sent?.push(init?.body);
    return new globalThis.Response(next(), {
      status: 200,
      headers: { 'content-type': 'text/event-stream' },
    });
  };
}

/**
 * Turn time over the canned model versus the raw SDK on the same requests and bodies, for
 * `agents` agents of `turns` turns each with `calls` parallel tool calls of `tool`. For each turn
 * (events read as a UI would), its request bodies are replayed, untimed JSON.parse first, with
 * `anthropic.messages.stream(params).finalMessage()` over the same canned bodies; overhead =
 * turn − replay, in wall time and in the process's CPU time (which a busy machine taking the
 * CPU away does not inflate, but GC threads do), and in wall time with the GC pauses that fell
 * inside the turn or its replay taken out. The first `warmUp` turns of each agent are left out.
 */
export async function cannedOverhead({ calls, agents, turns, warmUp, tool, system }) {
  const turnMs = [];
  const sdkMs = [];
  const overheadMs = [];
  const cpuOverheadMs = [];
  // Wall-time windows of each sample's turn and replays, to take GC pauses out afterwards.
  const windows = [];
  const pauses = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) pauses.push([entry.startTime, entry.duration]);
  });
  observer.observe({ entryTypes: ['gc'] });
  const cpuMs = (since) => {
    const used = process.cpuUsage(since);
    return (used.user + used.system) / 1000;
  };
  let requests = 0;
  let messages = 0;
  for (let agentIndex = 0; agentIndex < agents; agentIndex += 1) {
    const bodies = cannedTurns(calls, turns, tool.name);
    let queue = [];
    const sent = [];
    const client = createModelClient({
      apiKey: 'sk-bench-0123456789',
      baseURL: BASE_URL,
      fetch: cannedFetch(() => queue.shift(), sent),
      retryBaseMs: 1,
    });
    const raw = new Anthropic({
      apiKey: 'sk-bench-0123456789',
      baseURL: BASE_URL,
      fetch: cannedFetch(() => queue.shift()),
      maxRetries: 0,
    });
    const agent = createAgent({
      client,
      model: 'claude-bench-model',
      identity: {
        name: `canned-${agentIndex}`,
        id: `canned-${agentIndex}@bench`,
        teamName: 'bench',
      },
      system,
      tools: [tool],
      cwd: '/tmp',
      roots: () => ({ read: ['/tmp'], write: ['/tmp'] }),
      authorize: async () => ({ behavior: 'allow' }),
      environment: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    });
    try {
      for (let turn = 0; turn < turns; turn += 1) {
        queue = [...bodies[turn]];
        sent.length = 0;
        const cpuStarted = process.cpuUsage();
        const started = performance.now();
        const handle = agent.send(`Turn ${turn}.`);
        for await (const _event of handle);
        const result = await handle.result;
        const elapsed = performance.now() - started;
        const turnCpu = cpuMs(cpuStarted);
        if (result.reason !== 'completed')
          throw new Error(`canned turn ${turn} ended ${result.reason}`);
        queue = [...bodies[turn]];
        let replay = 0;
        let replayCpu = 0;
        const replayWindows = [];
        for (const body of sent) {
          const params = JSON.parse(body);
          const replayCpuStarted = process.cpuUsage();
          const replayStarted = performance.now();
          await raw.messages.stream(params).finalMessage();
          replay += performance.now() - replayStarted;
          replayWindows.push([replayStarted, performance.now()]);
          replayCpu += cpuMs(replayCpuStarted);
        }
        requests += sent.length;
        if (turn < warmUp) continue;
        turnMs.push(elapsed);
        sdkMs.push(replay);
        overheadMs.push(elapsed - replay);
        cpuOverheadMs.push(turnCpu - replayCpu);
        windows.push({ turn: [started, started + elapsed], replays: replayWindows });
      }
      messages = agent.messages().length;
    } finally {
      await agent.close();
    }
  }
  await new Promise((resolve) => setTimeout(resolve, 20)); // let the last GC entries arrive
  observer.disconnect();
  const pausedIn = ([from, to]) =>
    pauses.reduce(
      (sum, [start, duration]) =>
        sum + Math.max(0, Math.min(to, start + duration) - Math.max(from, start)),
      0,
    );
  const overheadWithoutGcMs = windows.map(({ turn, replays }, index) => {
    const replayPaused = replays.reduce((sum, window) => sum + pausedIn(window), 0);
    return overheadMs[index] - pausedIn(turn) + replayPaused;
  });
  return {
    turnMs,
    sdkMs,
    overheadMs,
    cpuOverheadMs,
    overheadWithoutGcMs,
    gcPauses: pauses.length,
    requests,
    messagesPerAgent: messages,
  };
}
