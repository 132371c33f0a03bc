// The seeds' whole team flow as scripts for @muster/scripted-model (a TEST DOUBLE of the
// Messages API, never a model): a lead that creates a team, spawns three teammates, reviews a
// plan (rejects, then approves), makes tasks with a dependency, broadcasts, asks everyone to
// stop (one refuses once) and deletes the team; and teammates that follow it. Scripts react to
// what each request shows, so they work whatever order the team's messages arrive in.
import type { ScriptRequest } from '@muster/scripted-model';
import { call, lastText, previousTool, say } from './team-runtime-test-support.js';

/** The team, its teammates and what the lead says at the end. */
export const FLOW_TEAM = 'flow';
export const FLOW_TEAMMATES = ['alice', 'bob', 'carol'] as const;
export const FLOW_DONE = 'Flow complete: the team is gone.';

const unescape = (text: string) => text.replaceAll('\\"', '"');

/** The system prompt's text. */
function systemText(request: ScriptRequest): string {
  const system = request.body.system as string | Array<{ text: string }> | undefined;
  if (system === undefined) return '';
  return typeof system === 'string' ? system : system.map((block) => block.text).join('\n');
}

/** The teammate a request comes from (its system prompt names it), or undefined for the lead. */
export function flowAgentOf(request: ScriptRequest): string | undefined {
  return /You are "([a-z]+)", a member of the team/.exec(systemText(request))?.[1];
}

/** The lead's script; its state lives in the closure (one per test). */
export function flowLeadScript(): (request: ScriptRequest) => ReturnType<typeof say> {
  // What the lead still means to do, in order; reactions to teammates go first.
  const steps: Array<ReturnType<typeof call>> = [];
  const reactions: Array<ReturnType<typeof call>> = [];
  const completed = new Set<string>();
  const approved = new Set<string>();
  let plansSeen = 0;
  let shutdownAsked = false;
  let carolAskedAgain = false;
  let deleting = false;
  const spawn = (name: string, prompt: string, extra: Record<string, unknown>) =>
    call('Task', {
      description: `${name}'s work`,
      prompt,
      subagent_type: 'general-purpose',
      name,
      team_name: FLOW_TEAM,
      ...extra,
    });
  return (request) => {
    const text = unescape(lastText(request));
    const previous = previousTool(request);
    // TeamDelete is refused while a teammate still runs (a pane takes a moment to close): wait, retry.
    if (previous === 'TeamDelete') {
      return text.includes('still has') ? call('Bash', { command: 'sleep 0.3' }) : say(FLOW_DONE);
    }
    if (previous === 'Bash' && deleting) return call('TeamDelete', {});
    if (text.includes('Run the flow')) {
      steps.push(
        call('TeamCreate', { team_name: FLOW_TEAM, description: 'The whole flow' }),
        spawn('alice', 'You are alice. Say hello to the lead, then take tasks from the list.', {}),
        spawn('bob', 'You are bob. Plan the tests, get the plan approved, then take tasks.', {
          mode: 'plan',
        }),
        spawn('carol', 'You are carol. Clean up the scratch folder, then take tasks.', {
          subagent_type: 'isolated-writer',
        }),
      );
    }
    for (const match of text.matchAll(/"requestId":"(plan_approval-[^"]+)"/g)) {
      plansSeen += 1;
      reactions.push(
        plansSeen === 1
          ? call('SendMessage', {
              type: 'plan_approval_response',
              recipient: 'bob',
              request_id: match[1],
              approve: false,
              content: 'Add an edge case for an empty name.',
            })
          : call('SendMessage', {
              type: 'plan_approval_response',
              recipient: 'bob',
              request_id: match[1],
              approve: true,
            }),
      );
      if (plansSeen === 2) {
        steps.push(
          call('TaskCreate', {
            subject: 'Write greet.js',
            description: 'Write greet.js exporting greet(name).',
            activeForm: 'Writing greet.js',
          }),
          call('TaskCreate', {
            subject: 'Test greet.js',
            description: 'Write greet.test.js.',
            activeForm: 'Testing greet.js',
          }),
          call('TaskUpdate', { taskId: '2', addBlockedBy: ['1'] }),
          call('SendMessage', {
            type: 'broadcast',
            content: 'Tasks #1 and #2 are on the list: take them.',
            summary: 'Tasks ready',
          }),
        );
      }
    }
    for (const match of text.matchAll(/"completedTaskId":"(\d+)"/g)) completed.add(match[1]!);
    for (const match of text.matchAll(/"type":"shutdown_approved"[^}]*?"from":"([a-z]+)"/g))
      approved.add(match[1]!);
    if (text.includes('"type":"shutdown_rejected"') && !carolAskedAgain) {
      carolAskedAgain = true;
      reactions.push(
        call('SendMessage', {
          type: 'shutdown_request',
          recipient: 'carol',
          content: 'Please stop now: the work is done.',
        }),
      );
    }
    if (completed.has('1') && completed.has('2') && !shutdownAsked) {
      shutdownAsked = true;
      for (const recipient of FLOW_TEAMMATES) {
        steps.push(
          call('SendMessage', {
            type: 'shutdown_request',
            recipient,
            content: 'All tasks are done; please stop.',
          }),
        );
      }
    }
    if (approved.size === FLOW_TEAMMATES.length && !deleting) {
      deleting = true;
      return call('TeamDelete', {});
    }
    const next = reactions.shift() ?? steps.shift();
    if (next !== undefined) return next;
    return say(previous === undefined ? 'Noted.' : 'Done for now.');
  };
}

/** The working directory the request's environment section names. */
function workingDirectoryOf(request: ScriptRequest): string {
  return /- Working directory: (.+)/.exec(systemText(request))?.[1] ?? '/nonexistent';
}

/** The input of the tool the model called in its previous message. */
function previousInput(request: ScriptRequest): Record<string, unknown> {
  const messages = request.body.messages as Array<{ content: unknown }>;
  const content = messages.at(-2)?.content;
  if (!Array.isArray(content)) return {};
  const block = content.find((item: { type?: string }) => item.type === 'tool_use') as
    { input?: Record<string, unknown> } | undefined;
  return block?.input ?? {};
}

/** The teammates' script (one for all three: each request says whose it is); bob plans in `planFile`. */
export function flowTeammateScript(
  planFile: string,
): (request: ScriptRequest) => ReturnType<typeof say> {
  let carolRefused = false;
  return (request) => {
    const name = flowAgentOf(request) ?? 'unknown';
    const cwd = workingDirectoryOf(request);
    const text = unescape(lastText(request));
    const previous = previousTool(request);
    const shutdown = /"request_id":"(shutdown-[^"]+)"/.exec(text);
    if (shutdown !== null && previous === undefined) {
      if (name === 'carol' && !carolRefused) {
        carolRefused = true;
        return call('SendMessage', {
          type: 'shutdown_response',
          request_id: shutdown[1],
          approve: false,
          content: 'Still tidying up.',
        });
      }
      return call('SendMessage', {
        type: 'shutdown_response',
        request_id: shutdown[1],
        approve: true,
      });
    }
    const took = /You took task #(\d+)/.exec(text);
    if (took !== null) {
      const file = took[1] === '1' ? 'greet.js' : 'greet.test.js';
      return call('Write', { file_path: `${cwd}/${file}`, content: `// ${file} by ${name}\n` });
    }
    const written = previous === 'Write' ? String(previousInput(request).file_path) : '';
    if (written.endsWith('.js')) {
      return call('TaskUpdate', {
        taskId: written.endsWith('greet.js') ? '1' : '2',
        status: 'completed',
      });
    }
    if (previous === 'TaskUpdate') return say('Task done.');
    if (name === 'bob') {
      if (previous === 'Write') return call('ExitPlanMode', {});
      if (previous === 'ExitPlanMode') return say('Plan sent; waiting for the lead.');
      if (text.includes('[Plan Rejected]'))
        return call('Write', {
          file_path: planFile,
          content: '1. Test greet.\n2. Test an empty name.\n',
        });
      if (text.includes('Plan the tests'))
        return call('Write', { file_path: planFile, content: '1. Test greet.\n' });
    }
    if (name === 'carol') {
      if (previous === 'Bash') return say('Could not clean up; moving on.');
      if (text.includes('Clean up the scratch folder'))
        return call('Bash', { command: 'rm -rf scratch' });
    }
    if (name === 'alice' && text.includes('Say hello')) {
      return call('SendMessage', {
        type: 'message',
        recipient: 'team-lead',
        content: 'Hello from alice.',
        summary: 'hello',
      });
    }
    if (previous === 'SendMessage') return say('Done.');
    return say('Waiting.');
  };
}
