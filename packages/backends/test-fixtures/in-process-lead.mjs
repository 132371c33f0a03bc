// A lead process with in-process members, for the crash containment test (R30).
// Usage: node in-process-lead.mjs <mode> <folder>
//   member-crashes: 2 steady members tick; one throws in a timer, one leaves a rejection
//                   unhandled; prints one JSON line per event, then a summary, then exits 0.
//   lead-throws:    a member runs; the lead's own timer throws (Node should end the process, code 1).
//   lead-rejects:   a member runs; the lead leaves a rejection unhandled (Node ends it, code 1).
//   tool-running:   a member starts a tool (`sleep 1000` in its own process group) that it ends
//                   when its lifecycle signal aborts; prints the tool's pid and waits for a signal.
import { spawn } from 'node:child_process';
import { createInProcessBackend, currentMember } from '../dist/index.js';

const [mode, folder] = process.argv.slice(2);
if (!mode || !folder) {
  console.error(
    'usage: node in-process-lead.mjs <member-crashes|lead-throws|lead-rejects> <folder>',
  );
  process.exit(2);
}
const print = (event) => console.log(JSON.stringify(event));
const team = 'crash-team';
const spec = (agentName, run) => ({
  root: folder,
  teamName: team,
  agentName,
  agentId: `${agentName}@${team}`,
  cwd: folder,
  run,
});
const untilAborted = (signal) =>
  new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));

const backend = createInProcessBackend({
  onCrash: (agentId, error, details) =>
    print({
      event: 'crash',
      agentId,
      error: String(error),
      origin: details.origin,
      seenAs: currentMember()?.agentId,
    }),
});

const ticks = new Map();
const steady = (name) =>
  spec(name, async (context) => {
    const timer = setInterval(() => ticks.set(name, (ticks.get(name) ?? 0) + 1), 10);
    context.ready();
    await untilAborted(context.signal);
    clearInterval(timer);
  });

const handles = [
  await backend.spawn(steady('steady-one')),
  await backend.spawn(steady('steady-two')),
];
await Promise.all(handles.map((handle) => handle.ready));
print({ event: 'ready' });

if (mode === 'tool-running') {
  await backend.spawn(
    spec('tool-user', async (context) => {
      const tool = spawn('sleep', ['1000'], { detached: true, stdio: 'ignore', cwd: context.cwd });
      context.signal.addEventListener('abort', () => {
        process.kill(-tool.pid, 'SIGKILL');
        print({
          event: 'aborted',
          agentId: currentMember()?.agentId ?? 'lead',
          reason: String(context.signal.reason),
        });
      });
      print({ event: 'tool', pid: tool.pid });
      context.ready();
      await new Promise((resolve) => tool.once('exit', resolve));
    }),
  );
} else if (mode === 'lead-throws') {
  setTimeout(() => {
    throw new Error('the lead itself failed');
  }, 20);
} else if (mode === 'lead-rejects') {
  setTimeout(() => {
    void Promise.reject(new Error('the lead left a rejection unhandled'));
  }, 20);
} else {
  const thrower = await backend.spawn(
    spec('thrower', async (context) => {
      context.ready();
      setTimeout(() => {
        throw new Error('thrown in a member timer');
      }, 20);
      await untilAborted(context.signal);
    }),
  );
  const rejecter = await backend.spawn(
    spec('rejecter', async (context) => {
      context.ready();
      setTimeout(() => {
        void Promise.reject(new Error('left unhandled by a member'));
      }, 20);
      await untilAborted(context.signal);
    }),
  );
  const exits = await Promise.all([thrower.exited, rejecter.exited]);
  for (const exit of exits) print({ event: 'exit', reason: exit.reason, message: exit.message });
  const before = new Map(ticks);
  // The others keep running: wait (bounded) until each steady member ticked 10 more times.
  const started = Date.now();
  while ([...before].some(([name, count]) => (ticks.get(name) ?? 0) < count + 10)) {
    if (Date.now() - started > 10_000) break;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  print({
    event: 'summary',
    ticksAfterCrash: Object.fromEntries(
      [...before].map(([name, count]) => [name, (ticks.get(name) ?? 0) - count]),
    ),
    steadyAlive: handles.map((handle) => handle.isAlive()),
  });
  await backend.close();
  print({ event: 'closed', uncaughtListeners: process.listenerCount('uncaughtException') });
}
