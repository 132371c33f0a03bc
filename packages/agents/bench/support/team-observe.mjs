// What bench/team.mjs keeps per teammate, and the event sink that fills it: its state (from the
// loop's member_state events), its turns (wall time from turn_start to turn_end, the time spent
// in its script, what started the turn), the SendMessage calls whose tags it registered (written
// when the call succeeded) and the idle notifications it sent.
import { performance } from 'node:perf_hooks';
import { tagOf } from './team-script.mjs';

const TAG = /\[msg:(m\d+)\]/;
const ORDER = ['hold', 'work', 'task', 'ping', 'peer', 'report', 'mid-turn'];

/** One teammate's record; `file` is the module it reads, `peer` whom it writes to. */
export function createTeammateRecord({ name, peer, file, ledger }) {
  const record = {
    name,
    state: 'starting',
    idles: 0,
    requests: 0,
    scriptMs: 0,
    workTurns: 0,
    turnKinds: new Set(),
    turns: [],
    current: undefined,
    fileToRead: () => file,
    /** The SendMessage calls of a work turn: to its peer, and every fifth turn (alone: every turn) to the lead. */
    sendSteps() {
      record.workTurns += 1;
      const steps = [];
      if (peer !== undefined) {
        const toPeer = ledger.register(name, peer, 'peer');
        steps.push({
          type: 'tool_use',
          name: 'SendMessage',
          input: {
            type: 'message',
            recipient: peer,
            content: `Progress from ${name}. ${tagOf(toPeer)}`,
            summary: 'progress',
          },
        });
      }
      if (peer === undefined || record.workTurns % 5 === 0) {
        const toLead = ledger.register(name, 'team-lead', 'report');
        steps.push({
          type: 'tool_use',
          name: 'SendMessage',
          input: {
            type: 'message',
            recipient: 'team-lead',
            content: `Report from ${name}. ${tagOf(toLead)}`,
            summary: 'report',
          },
        });
      }
      return steps;
    },
  };
  return record;
}

/** The `onEvent` of one teammate: fills `record`, the ledger's write times and `counters`. */
export function observeTeammate(record, ledger, counters) {
  const sends = new Map();
  return (event) => {
    if (event.type === 'member_state') {
      record.state = event.state;
      if (event.state === 'idle') record.idles += 1;
      return;
    }
    if (event.type === 'message' && event.protocolType === 'idle_notification') {
      counters.idleEmitted += 1;
      return;
    }
    if (event.type === 'notice') {
      counters.notices.push(event.text);
      return;
    }
    if (event.type !== 'agent') return;
    const inner = event.event;
    const now = performance.now();
    if (inner.type === 'turn_start') {
      record.current = { startedAt: now, scriptBefore: record.scriptMs };
    } else if (inner.type === 'turn_end' && record.current !== undefined) {
      const kind = ORDER.find((name) => record.turnKinds.has(name)) ?? 'other';
      record.turns.push({
        kind,
        wallMs: now - record.current.startedAt,
        scriptMs: record.scriptMs - record.current.scriptBefore,
        reason: inner.reason,
      });
      record.current = undefined;
    } else if (inner.type === 'tool_call_start' && inner.name === 'SendMessage') {
      const match = TAG.exec(String(inner.input?.content ?? ''));
      if (match !== null) sends.set(inner.toolUseId, match[1]);
    } else if (inner.type === 'tool_call_end' && sends.has(inner.toolUseId)) {
      const id = sends.get(inner.toolUseId);
      sends.delete(inner.toolUseId);
      if (inner.allowed && !inner.isError) ledger.wrote(id, now);
      else counters.sendFailures += 1;
    }
  };
}
