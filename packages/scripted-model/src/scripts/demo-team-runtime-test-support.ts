/**
 * Test support (not exported): a small simulated Claude Code 2.1.45 team runtime. It sends the
 * script Claude Code-shaped requests, executes the tool calls it answers with (team tools in
 * memory, Read/Write/Edit/Bash for real in a temporary repository), delivers inbox entries as
 * `<teammate-message>` turns (all at once to the lead, one per turn to a teammate, a shutdown
 * request first), sends idle notifications, and records what happened. Bounded by `maxTurns`.
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createScriptContext } from '../script-context.js';
import type { Script, ScriptRequest } from '../types.js';
import {
  claudeCodeRequest,
  readAsClaudeCode,
  runCommand,
  schemaProblems,
  teammateMessage,
  toolSchema,
  type AgentKind,
} from './demo-team-test-support.js';
import {
  sendMessage,
  type Agent,
  type InboxEntry,
  type TaskRecord,
} from './demo-team-messages-test-support.js';

/** What a simulated run did. */
export interface SimulationRecord {
  /** `agent: Tool {input}` per call, in order; `agent: text …` for end_turn replies. */
  events: string[];
  /** Problems found checking each tool input against Claude Code's schemas (should be empty). */
  schemaProblems: string[];
  /** Bash commands teammates asked permission for, and the answer. */
  permissionAsks: { agent: string; command: string; allowed: boolean }[];
  /** Every plan_approval_response the lead sent. */
  planResponses: { recipient: string; approve: boolean; feedback?: string }[];
  /** Requests sent to the script. */
  requests: ScriptRequest[];
  /** Tasks at the end. */
  tasks: TaskRecord[];
  /** Whether TeamDelete succeeded. */
  teamDeleted: boolean;
  /** Why the loop stopped. */
  stoppedBecause: 'quiet' | 'max-turns';
}

/** Options of a simulated run. */
export interface SimulationOptions {
  /** The repository folder (already filled). */
  repository: string;
  /** A folder standing in for ~/.claude (plans are written there). */
  home: string;
  /** The lead's prompt. */
  prompt: string;
  /** Answer to a teammate's Bash permission ask (default: allow). */
  allowBash?: (agent: string, command: string) => boolean;
  /** Bound on script calls (default 200). */
  maxTurns?: number;
}

const COLORS = ['blue', 'green', 'yellow', 'purple'];

/** Runs the script as a whole team until nothing is left to do (or maxTurns). */
export async function simulateTeam(
  script: Script,
  options: SimulationOptions,
): Promise<SimulationRecord> {
  const record: SimulationRecord = {
    events: [],
    schemaProblems: [],
    permissionAsks: [],
    planResponses: [],
    requests: [],
    tasks: [],
    teamDeleted: false,
    stoppedBecause: 'quiet',
  };
  const agents = new Map<string, Agent>();
  const tasks = new Map<string, TaskRecord>();
  let taskCounter = 0;
  let idCounter = 0;
  let team = '';
  const state = new Map<string, unknown>();
  const now = (): string => new Date().toISOString();
  const lead: Agent = {
    name: 'team-lead',
    kind: 'lead',
    messages: [{ role: 'user', content: options.prompt }],
    inbox: [],
    pending: true,
    ended: false,
    planApproved: true,
  };
  agents.set(lead.name, lead);

  const deliver = (to: string, entry: InboxEntry): void => {
    agents.get(to)?.inbox.push(entry);
  };
  const json = (value: unknown): string => JSON.stringify(value);

  async function execute(
    agent: Agent,
    name: string,
    input: Record<string, unknown>,
  ): Promise<{ content: string; isError?: boolean }> {
    const path = String(input.file_path ?? '');
    switch (name) {
      case 'TeamCreate':
        team = String(input.team_name);
        return {
          content: JSON.stringify(
            {
              team_name: team,
              team_file_path: `${options.home}/teams/${team}/config.json`,
              lead_agent_id: `team-lead@${team}`,
            },
            null,
            2,
          ),
        };
      case 'TaskCreate': {
        const id = String(++taskCounter);
        tasks.set(id, {
          id,
          subject: String(input.subject),
          status: 'pending',
          blockedBy: [],
          internal: false,
        });
        return { content: `Task #${id} created successfully: ${String(input.subject)}` };
      }
      case 'TaskUpdate': {
        const task = tasks.get(String(input.taskId));
        if (task === undefined)
          return { content: `Task #${String(input.taskId)} not found`, isError: true };
        const fields: string[] = [];
        if (typeof input.status === 'string') {
          task.status = input.status;
          fields.push('status');
        }
        if (typeof input.owner === 'string') {
          task.owner = input.owner;
          fields.push('owner');
          deliver(input.owner, {
            from: agent.name,
            text: json({
              type: 'task_assignment',
              taskId: task.id,
              subject: task.subject,
              assignedBy: agent.name,
              timestamp: now(),
            }),
          });
        }
        if (Array.isArray(input.addBlockedBy)) {
          task.blockedBy.push(...(input.addBlockedBy as string[]));
          fields.push('blockedBy');
        }
        return { content: `Updated task #${task.id} ${fields.join(', ')}` };
      }
      case 'TaskList': {
        const lines = [...tasks.values()]
          .filter((task) => !task.internal)
          .map((task) => {
            const open = task.blockedBy.filter((id) => tasks.get(id)?.status !== 'completed');
            return `#${task.id} [${task.status}] ${task.subject}${task.owner ? ` (${task.owner})` : ''}${open.length ? ` [blocked by ${open.map((id) => `#${id}`).join(', ')}]` : ''}`;
          });
        return { content: lines.join('\n') || 'No tasks found' };
      }
      case 'Task': {
        const name = String(input.name);
        const kind: AgentKind = input.mode === 'plan' ? 'teammate-plan-mode' : 'teammate';
        const first: Record<string, unknown>[] = [
          { type: 'text', text: teammateMessage('team-lead', String(input.prompt)) },
        ];
        if (kind === 'teammate-plan-mode') {
          first.push({
            type: 'text',
            text: `<system-reminder>\nPlan mode is active. No plan file exists yet. You should create your plan at ${options.home}/plans/quiet-river-agent-${name}.md using the Write tool.\n</system-reminder>`,
          });
        }
        agents.set(name, {
          name,
          kind,
          color: COLORS[agents.size - 1],
          messages: [{ role: 'user', content: first }],
          inbox: [],
          pending: true,
          ended: false,
          planApproved: kind === 'teammate',
        });
        const internal = String(++taskCounter);
        tasks.set(internal, {
          id: internal,
          subject: name,
          status: 'in_progress',
          blockedBy: [],
          internal: true,
        });
        return {
          content: `Spawned successfully.\nagent_id: ${name}@${team}\nname: ${name}\nteam_name: ${team}\nThe agent is now running and will receive instructions via mailbox.`,
        };
      }
      case 'SendMessage':
        return sendMessage(agent, input, { agents, deliver, record, nextId: () => ++idCounter });
      case 'ExitPlanMode': {
        const planFile = `${options.home}/plans/quiet-river-agent-${agent.name}.md`;
        const planContent = existsSync(planFile) ? await readFile(planFile, 'utf8') : '';
        deliver('team-lead', {
          from: agent.name,
          text: json({
            type: 'plan_approval_request',
            from: agent.name,
            timestamp: now(),
            planFilePath: planFile,
            planContent,
            requestId: `plan_approval-${++idCounter}@${agent.name}@${team}`,
          }),
        });
        return {
          content:
            'Your plan has been submitted to the team lead for approval. Wait for their response before you start.',
        };
      }
      case 'Read':
        return existsSync(path)
          ? { content: await readAsClaudeCode(path) }
          : { content: 'File does not exist.', isError: true };
      case 'Write':
        if (!agent.planApproved && !path.includes('/plans/'))
          return { content: 'Plan mode: only the plan file may be written.', isError: true };
        await mkdir(dirname(path), { recursive: true });
        await writeFile(path, String(input.content));
        return { content: `File created successfully at: ${path}` };
      case 'Edit': {
        if (!agent.planApproved)
          return { content: 'Plan mode: edits are not allowed.', isError: true };
        if (!existsSync(path)) return { content: 'File does not exist.', isError: true };
        const before = await readFile(path, 'utf8');
        const old = String(input.old_string);
        if (before.split(old).length !== 2)
          return { content: `String to replace not found exactly once in ${path}`, isError: true };
        await writeFile(
          path,
          before.replace(old, () => String(input.new_string)),
        );
        return { content: `The file ${path} has been updated.` };
      }
      case 'Bash': {
        const command = String(input.command);
        if (agent.kind !== 'lead') {
          const allowed = options.allowBash?.(agent.name, command) ?? true;
          record.permissionAsks.push({ agent: agent.name, command, allowed });
          if (!allowed)
            return {
              content: `Permission to use Bash with command ${command} has been denied.`,
              isError: true,
            };
        }
        const [output, failed] = runCommand(command, options.repository);
        return { content: output, isError: failed };
      }
      case 'TeamDelete': {
        const active = [...agents.values()].filter(
          (other) => other.kind !== 'lead' && !other.ended,
        );
        if (active.length > 0)
          return {
            content: `Cannot delete team with ${active.length} active member(s)`,
            isError: true,
          };
        record.teamDeleted = true;
        return {
          content: JSON.stringify({
            success: true,
            message: `Cleaned up directories and worktrees for team "${team}"`,
            team_name: team,
          }),
        };
      }
      default:
        return { content: `No such tool available: ${name}`, isError: true };
    }
  }

  const maxTurns = options.maxTurns ?? 200;
  let turns = 0;
  for (;;) {
    const ready = [...agents.values()].find((agent) => agent.pending && !agent.ended);
    if (ready === undefined) {
      const waiting = [...agents.values()].find((agent) => !agent.ended && agent.inbox.length > 0);
      if (waiting === undefined) break;
      let entries: InboxEntry[];
      if (waiting.kind === 'lead') entries = waiting.inbox.splice(0);
      else {
        const shutdown = waiting.inbox.findIndex((entry) =>
          entry.text.includes('"type":"shutdown_request"'),
        );
        entries = waiting.inbox.splice(shutdown >= 0 ? shutdown : 0, 1);
      }
      const body = entries
        .map((entry) => teammateMessage(entry.from, entry.text, entry))
        .join('\n\n');
      waiting.messages.push({ role: 'user', content: [{ type: 'text', text: body }] });
      waiting.pending = true;
      continue;
    }
    if (++turns > maxTurns) {
      record.stoppedBecause = 'max-turns';
      break;
    }
    const request = claudeCodeRequest(
      ready.kind,
      structuredClone(ready.messages),
      options.repository,
      record.requests.length,
    );
    record.requests.push(request);
    const reply = await script(request, createScriptContext({ state, requests: record.requests }));
    const content = reply.content.map((block) =>
      block.type === 'tool_use' ? { ...block, id: block.id ?? `toolu_sim${++idCounter}` } : block,
    );
    ready.messages.push({ role: 'assistant', content });
    const uses = content.filter((block) => block.type === 'tool_use');
    if (uses.length === 0) {
      record.events.push(
        `${ready.name}: text ${content.map((block) => (block.type === 'text' ? block.text : '')).join(' ')}`,
      );
      ready.pending = false;
      if (ready.kind !== 'lead' && !ready.ended) {
        deliver('team-lead', {
          from: ready.name,
          text: json({
            type: 'idle_notification',
            from: ready.name,
            timestamp: now(),
            idleReason: 'available',
          }),
          ...(ready.color ? { color: ready.color } : {}),
        });
      }
      continue;
    }
    const results: Record<string, unknown>[] = [];
    for (const use of uses) {
      const input = use.input as Record<string, unknown>;
      record.events.push(`${ready.name}: ${use.name} ${JSON.stringify(input)}`);
      for (const problem of schemaProblems(toolSchema(use.name), input))
        record.schemaProblems.push(`${ready.name} ${use.name}: ${problem}`);
      const result = await execute(ready, use.name, input);
      results.push({
        type: 'tool_result',
        tool_use_id: use.id,
        content: result.content,
        ...(result.isError ? { is_error: true } : {}),
      });
    }
    ready.messages.push({ role: 'user', content: results });
    if (ready.ended) ready.pending = false;
  }
  record.tasks = [...tasks.values()];
  return record;
}
