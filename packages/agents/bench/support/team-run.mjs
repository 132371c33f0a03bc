// One size of bench/team.mjs: a real team on disk (@muster/teams), N in-process teammates run by
// runTeammate, each with its own @muster/scripted-model fetch (a TEST DOUBLE, zero latency, in
// process), a lead played by the bench through a mailbox signed with the lead keyring, and a
// shared task list. Rounds of lead messages drive the work turns; the figures are returned.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { runTeammate } from '@muster/agents';
import { createMailbox, readInboxHistory } from '@muster/mailbox';
import { createLeadKeyring } from '@muster/permissions';
import { createModelClient } from '@muster/query';
import { createScriptedFetch } from '@muster/scripted-model';
import { createTaskStore } from '@muster/tasks';
import { addMember, createTeam } from '@muster/teams';
import { createGlobTool, createReadTool } from '@muster/tools';
import { createHoldTool, createLedger, tagOf, teammateScript } from './team-script.mjs';
import { createTeammateRecord, observeTeammate } from './team-observe.mjs';
import { summary, mebibytes, round } from './team-figures.mjs';

const LEAD = 'team-lead';
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` every 5 ms until it is true; throws naming `what` after `timeoutMs`. */
async function until(what, check, timeoutMs = 30_000) {
  const deadline = performance.now() + timeoutMs;
  while (!check()) {
    if (performance.now() > deadline) {
      throw new Error(`bench/team: waited ${timeoutMs / 1000} s for ${what()}; stopped.`);
    }
    await sleep(5);
  }
}

async function makeProject(root) {
  const project = path.join(root, 'project');
  for (const folder of ['src', 'src/lib', 'src/app']) {
    await mkdir(path.join(project, folder), { recursive: true });
  }
  const files = [];
  for (let index = 0; index < 12; index += 1) {
    const folder = ['src', 'src/lib', 'src/app'][index % 3];
    const file = path.join(project, folder, `module-${index}.ts`);
    const lines = Array.from(
      { length: 20 },
      (_unused, line) => `export const value${line} = ${index * 100 + line};`,
    );
    await writeFile(file, `${lines.join('\n')}\n`);
    files.push(file);
  }
  return { project, files };
}

/**
 * Runs `teammates` teammates for `turns` lead rounds (every `holdEvery`-th round has a slow tool
 * during which the lead writes again), then `wakeSamples` wakes of one settled idle teammate.
 * The team lives in a new folder under `parent` (default the system's temporary folder).
 */
export async function runTeamBench(options) {
  const { teammates: count, turns, holdEvery, holdMs, wakeSamples, settleMs, collect } = options;
  const root = await mkdtemp(path.join(options.parent ?? tmpdir(), 'muster-bench-team-'));
  const controllers = [];
  const exits = [];
  const leadWatch = new AbortController();
  let leadWatching;
  try {
    const { project, files } = await makeProject(root);
    const { teamName } = await createTeam({ root, name: 'bench', cwd: project });
    const names = Array.from(
      { length: count },
      (_unused, index) => `t${String(index + 1).padStart(2, '0')}`,
    );
    for (const name of names) {
      await addMember(root, teamName, {
        name,
        agentType: 'general-purpose',
        model: 'claude-bench-model',
        prompt: 'Bench teammate.',
        planModeRequired: false,
        cwd: project,
        backendType: 'in-process',
        tmuxPaneId: 'in-process',
      });
    }
    const keyring = createLeadKeyring();
    const lead = createMailbox({ root, team: teamName, ...keyring.mailboxOptions() });
    const store = createTaskStore({ root, team: teamName });
    const ledger = createLedger();
    const toolEnds = new Map();
    const counters = { idleEmitted: 0, idleReceived: 0, sendFailures: 0, notices: [] };

    // The lead reads its inbox as a lead runtime does (claimed, marked read, so retention keeps it short).
    await lead.claimInbox(LEAD);
    const leadSeen = new Map();
    leadWatching = (async () => {
      for await (const delivered of lead.watch(LEAD, {
        signal: leadWatch.signal,
        markRead: true,
      })) {
        const content = delivered.content;
        if (content.kind === 'protocol' && content.message.type === 'idle_notification') {
          counters.idleReceived += 1;
        }
        for (const match of delivered.message.text.matchAll(/\[msg:(m\d+)\]/g)) {
          if (!leadSeen.has(match[1])) leadSeen.set(match[1], performance.now());
        }
      }
    })().catch((error) => {
      if (!leadWatch.signal.aborted) counters.notices.push(`lead watch: ${error.message}`);
    });

    const leadSend = async (to, kind, text) => {
      const id = ledger.register(LEAD, to, kind);
      await lead.send(to, { from: LEAD, text: `${text} ${tagOf(id)}`, summary: kind });
      ledger.wrote(id);
      return id;
    };

    collect();
    const memoryBefore = process.memoryUsage();
    const records = names.map((name, index) =>
      createTeammateRecord({
        name,
        peer: count > 1 ? names[(index + 1) % count] : undefined,
        file: files[index % files.length],
        ledger,
      }),
    );
    for (const record of records) {
      const controller = new AbortController();
      controllers.push(controller);
      const client = createModelClient({
        apiKey: 'sk-bench-0123456789abcdef',
        baseURL: 'http://scripted-model.invalid',
        retryBaseMs: 1,
        fetch: createScriptedFetch({ script: teammateScript(record, ledger) }),
      });
      exits.push(
        runTeammate({
          root,
          teamName,
          agentName: record.name,
          cwd: project,
          client,
          model: 'claude-bench-model',
          systemPrompt: `You are ${record.name}, a bench teammate. (Scripted test double.)`,
          tools: [
            createReadTool(),
            createGlobTool(),
            createHoldTool({
              agentName: record.name,
              holdMs,
              toolEnds,
              onHold: (name) => leadSend(name, 'mid-turn', 'Change of plan: note this.'),
            }),
          ],
          leadTrust: { ledger: keyring.ledger },
          signal: controller.signal,
          environment: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
          homeDirectory: root,
          backendType: 'in-process',
          prompt: 'Start: wait for the lead.',
          onEvent: observeTeammate(record, ledger, counters),
        }),
      );
    }
    const quiet = (timeoutMs) =>
      until(
        () =>
          `a quiet team (working: ${
            records
              .filter((record) => record.state !== 'idle')
              .map((record) => record.name)
              .join(', ') || 'none'
          }; unread: ${[...ledger.written].filter(([id, item]) => item.to !== LEAD && item.writtenAt !== undefined && !ledger.seen.has(id)).length})`,
        () =>
          records.every((record) => record.state === 'idle') &&
          [...ledger.written].every(
            ([id, item]) => item.to === LEAD || item.writtenAt === undefined || ledger.seen.has(id),
          ),
        timeoutMs,
      );
    await until(
      () => 'every teammate to finish its spawn turn',
      () => records.every((record) => record.idles > 0),
      60_000,
    );
    collect();
    const memoryStarted = process.memoryUsage();

    const tasks = [];
    for (let index = 0; index < count * 2; index += 1) {
      tasks.push(
        await store.create({
          subject: `Bench task ${index + 1}`,
          description: 'Read a module and report.',
        }),
      );
    }

    // Rounds: the lead writes to every teammate at once; each works a turn with tools and messages.
    const cpuBefore = process.cpuUsage();
    const roundsBegun = performance.now();
    const turnsBefore = records.reduce((sum, record) => sum + record.turns.length, 0);
    const fanOutIds = [];
    for (let turn = 0; turn < turns; turn += 1) {
      await quiet();
      const hold = holdEvery > 0 && turn % holdEvery === holdEvery - 1;
      const ids = await Promise.all(
        records.map((record) =>
          leadSend(
            record.name,
            hold ? 'hold' : 'work',
            `Round ${turn + 1}: ${hold ? 'run the slow step' : 'do your part'}.`,
          ),
        ),
      );
      fanOutIds.push(...ids);
    }
    await quiet();
    await until(
      () => `every task claimed (${ledger.claims.size}/${tasks.length})`,
      () => ledger.claims.size >= tasks.length,
    );
    await quiet();
    const cpuUsed = process.cpuUsage(cpuBefore);
    const roundsMs = performance.now() - roundsBegun;
    const roundTurns = records.reduce((sum, record) => sum + record.turns.length, 0) - turnsBefore;

    // Wake: one settled idle teammate at a time (the others idle too).
    const wakeIds = [];
    for (let sample = 0; sample < wakeSamples; sample += 1) {
      await sleep(settleMs);
      const record = records[sample % count];
      wakeIds.push(await leadSend(record.name, 'ping', 'Ping: reply when you read this.'));
      await quiet();
    }
    collect();
    const memoryEnd = process.memoryUsage();
    const maxRss = process.resourceUsage().maxRSS * 1024;

    // Lost: every counted message must be in its recipient's inbox (or its archive) at the end.
    const present = new Set();
    for (const agent of [LEAD, ...names]) {
      for (const { entry } of await readInboxHistory({ root, team: teamName, agent })) {
        for (const match of entry.text.matchAll(/\[msg:(m\d+)\]/g))
          present.add(`${agent}:${match[1]}`);
      }
    }
    const written = [...ledger.written].filter(([, item]) => item.writtenAt !== undefined);
    const lost = written.filter(([id, item]) => !present.has(`${item.to}:${id}`)).map(([id]) => id);
    const undelivered = written
      .filter(([id, item]) => item.to !== LEAD && !ledger.seen.has(id))
      .map(([id]) => id);
    const unreadByLead = written.filter(
      ([id, item]) => item.to === LEAD && !leadSeen.has(id),
    ).length;
    await until(
      () =>
        `the lead to read every idle notification (${counters.idleReceived}/${counters.idleEmitted})`,
      () => counters.idleReceived >= counters.idleEmitted,
      10_000,
    ).catch(() => undefined);
    const taskFiles = (await store.list()).tasks.map((listed) => listed.task);
    const latency = (ids) =>
      ids.flatMap((id) => {
        const seen = ledger.seen.get(id);
        const writtenAt = ledger.written.get(id)?.writtenAt;
        return seen === undefined || writtenAt === undefined ? [] : [seen.at - writtenAt];
      });
    const midIds = [...ledger.written]
      .filter(([, item]) => item.kind === 'mid-turn')
      .map(([id]) => id);
    const workTurns = records.flatMap((record) =>
      record.turns.filter((turn) => turn.kind === 'work'),
    );
    const turnKinds = {};
    for (const record of records) {
      for (const turn of record.turns) turnKinds[turn.kind] = (turnKinds[turn.kind] ?? 0) + 1;
    }
    return {
      teammates: count,
      workTurnsPerTeammate: turns,
      turns: turnKinds,
      requests: records.reduce((sum, record) => sum + record.requests, 0),
      roundsSeconds: round(roundsMs / 1000, 1),
      overheadPerWorkTurn: summary(workTurns.map((turn) => turn.wallMs - turn.scriptMs)),
      scriptPerWorkTurn: summary(workTurns.map((turn) => turn.scriptMs)),
      cpuPerTurnMs: round((cpuUsed.user + cpuUsed.system) / 1000 / roundTurns),
      memory: {
        rssPerTeammateStartedMiB: mebibytes((memoryStarted.rss - memoryBefore.rss) / count),
        heapPerTeammateStartedMiB: mebibytes(
          (memoryStarted.heapUsed - memoryBefore.heapUsed) / count,
        ),
        rssPerTeammateEndMiB: mebibytes((memoryEnd.rss - memoryBefore.rss) / count),
        heapPerTeammateEndMiB: mebibytes((memoryEnd.heapUsed - memoryBefore.heapUsed) / count),
        rssBeforeMiB: mebibytes(memoryBefore.rss),
        rssEndMiB: mebibytes(memoryEnd.rss),
        maxRssMiB: mebibytes(maxRss),
      },
      wake: { samples: wakeIds.length, settleMs, ...summary(latency(wakeIds)) },
      fanOut: { samples: fanOutIds.length, ...summary(latency(fanOutIds)) },
      midTurn: {
        samples: midIds.length,
        holdMs,
        atBoundary: midIds.filter((id) => ledger.seen.get(id)?.midTurn === true).length,
        written: summary(latency(midIds)),
        afterTool: summary(
          midIds.flatMap((id) =>
            toolEnds.has(id) && ledger.seen.has(id)
              ? [ledger.seen.get(id).at - toolEnds.get(id)]
              : [],
          ),
        ),
      },
      messages: {
        written: written.length,
        lost: lost.length,
        lostIds: lost.slice(0, 10),
        undelivered: undelivered.length,
        unreadByLead,
        sendFailures: counters.sendFailures,
        idleNotificationsEmitted: counters.idleEmitted,
        idleNotificationsReadByLead: counters.idleReceived,
      },
      tasks: {
        created: tasks.length,
        claimed: ledger.claims.size,
        doubleClaims: [...ledger.claims.values()].filter((claimers) => claimers.length > 1).length,
        completed: taskFiles.filter((task) => task.status === 'completed').length,
      },
      notices: counters.notices.slice(0, 5),
      noticeCount: counters.notices.length,
      exits: await settleExits(controllers, exits),
    };
  } finally {
    for (const controller of controllers) controller.abort('bench over');
    await Promise.allSettled(exits);
    leadWatch.abort();
    await leadWatching;
    await rm(root, { recursive: true, force: true });
  }
}

/** Aborts every teammate and counts how their loops ended. */
async function settleExits(controllers, exits) {
  for (const controller of controllers) controller.abort('bench over');
  const reasons = {};
  for (const exit of await Promise.all(exits))
    reasons[exit.reason] = (reasons[exit.reason] ?? 0) + 1;
  return reasons;
}
