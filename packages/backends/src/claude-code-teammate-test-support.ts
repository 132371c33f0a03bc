// Test support for running the real Claude Code 2.1.45 as a pane teammate of a team the test
// leads: its interactive first-run state, the team (config + spawn prompt, as Claude Code's own
// lead writes them for a pane teammate), and the scripted model's part for the teammate.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createMailbox } from '@muster/mailbox';
import {
  allTeammateMessages,
  hasTool,
  teammateMessages,
  toolCalls,
  toolNames,
  type Reply,
  type Script,
  type ScriptRequest,
  type TeammateMessage,
} from '@muster/scripted-model';
import { addMember, createTeam, updateTeamConfig, type TeamDialect } from '@muster/teams';
import type { ClaudeCodeHome } from '@muster/test-utils';

/** The teammate's name. */
export const TEAMMATE_NAME = 'alice';
/** The team the test leads. */
export const TEAMMATE_TEAM = 'pane-team';
/** The spawn prompt, written to the teammate's inbox. */
export const SPAWN_PROMPT = 'You are alice. Tell team-lead you are here, then wait.';
/** A token only the teammate's message to the lead carries. */
export const TEAMMATE_REPLY = 'HELLO-91c2: alice is here.';
/** A lead message that makes the script hold the teammate's next model call open. */
export const HOLD_MESSAGE = 'HOLD-91c2: think about this for a long time.';

/**
 * Writes `<CLAUDE_CONFIG_DIR>/.claude.json` as an interactive Claude Code 2.1.45 needs it to go
 * straight to work in a pane: onboarding done (else it checks api.anthropic.com and exits), the
 * API key's last 20 characters approved, `workDirectory` trusted, the Opus effort callout seen.
 */
export async function prepareInteractiveHome(home: ClaudeCodeHome, apiKey: string): Promise<void> {
  const config = {
    hasCompletedOnboarding: true,
    theme: 'dark',
    effortCalloutDismissed: true,
    customApiKeyResponses: { approved: [apiKey.slice(-20)], rejected: [] },
    projects: { [home.workDirectory]: { hasTrustDialogAccepted: true, allowedTools: [] } },
  };
  await writeFile(join(home.configDirectory, '.claude.json'), JSON.stringify(config, null, 2));
}

/** What `@muster/permissions`' lead keyring gives the lead's mailbox (2.1.330: signed entries). */
export type LeadMailboxOptions = Pick<Parameters<typeof createMailbox>[0], 'signEntry' | 'ledger'>;

/** The team the test leads, with the teammate registered as Claude Code's lead registers a pane teammate. */
export interface LeadTeam {
  teamName: string;
  leadSessionId: string;
  color: string;
  /** The mailbox of the lead side (`@muster/mailbox`, 2.1.45 dialect). */
  mailbox: ReturnType<typeof createMailbox>;
  /** Records the pane id in the teammate's member entry (Claude Code does so after the split). */
  recordPane(paneId: string): Promise<void>;
}

/**
 * Creates the team under `root` (the teammate's `CLAUDE_CONFIG_DIR`) in the 2.1.45 dialect, or
 * in 2.1.330's with the lead's entries signed through `mailboxOptions`,
 * adds the teammate with `backendType "tmux"` and `tmuxPaneId ""`, and writes its spawn
 * prompt as the first entry of its inbox, from `team-lead`.
 */
export async function createLeadTeam(
  root: string,
  cwd: string,
  options: { dialect: TeamDialect; mailboxOptions?: LeadMailboxOptions } = { dialect: 'v1' },
): Promise<LeadTeam> {
  const { teamName, config } = await createTeam({
    root,
    name: TEAMMATE_TEAM,
    ...(options.dialect === 'v1'
      ? { description: 'A muster lead and one real Claude Code teammate in a tmux pane' }
      : {}),
    cwd,
    dialect: options.dialect,
    leadModel: 'claude-sonnet-4-6',
  });
  const member = await addMember(root, teamName, {
    name: TEAMMATE_NAME,
    agentType: 'general-purpose',
    model: 'claude-opus-4-6',
    prompt: SPAWN_PROMPT,
    planModeRequired: false,
    cwd,
    backendType: 'tmux',
    tmuxPaneId: '',
  });
  if (config.leadSessionId === undefined)
    throw new Error(
      `createTeam wrote no leadSessionId for ${teamName}: --parent-session-id needs it`,
    );
  const leadSessionId = config.leadSessionId;
  const mailbox = createMailbox({ root, team: teamName, ...options.mailboxOptions });
  await mailbox.send(TEAMMATE_NAME, { from: 'team-lead', text: SPAWN_PROMPT });
  return {
    teamName,
    leadSessionId,
    color: member.color ?? 'blue',
    mailbox,
    recordPane: async (paneId) => {
      await updateTeamConfig(root, teamName, (current) => ({
        ...current,
        members: current.members.map((entry) =>
          entry.name === TEAMMATE_NAME ? { ...entry, tmuxPaneId: paneId } : entry,
        ),
      }));
    },
  };
}

const text = (value: string): Reply => ({ content: [{ type: 'text', text: value }] });
const toolUse = (name: string, input: Record<string, unknown>): Reply => ({
  content: [{ type: 'tool_use', name, input }],
});

/** Whether the teammate already sent a plain message, or a `shutdown_response` (both dialects). */
const sent = (request: ScriptRequest, type: 'message' | 'shutdown_response'): boolean =>
  toolCalls(request).some((call) => {
    if (call.name !== 'SendMessage') return false;
    const message = call.input.message as { type?: unknown } | string | undefined;
    if (call.input.type !== undefined) return call.input.type === type; // 2.1.45
    if (type === 'message') return typeof message === 'string'; // 2.1.330
    return typeof message === 'object' && message.type === type;
  });

/** SendMessage input: 2.1.45 offers the tool (`type`, `recipient`, `content`), 2.1.330 does not (`to`, `message`). */
function sendMessage(
  request: ScriptRequest,
  message: { content: string; summary: string } | { shutdownResponse: unknown },
): Reply {
  const classic = hasTool(request, 'SendMessage');
  if ('content' in message)
    return toolUse(
      'SendMessage',
      classic
        ? { type: 'message', recipient: 'team-lead', ...message }
        : { to: 'team-lead', summary: message.summary, message: message.content },
    );
  const response = { request_id: message.shutdownResponse, approve: true };
  return toolUse(
    'SendMessage',
    classic
      ? { type: 'shutdown_response', ...response }
      : { to: 'team-lead', message: { type: 'shutdown_response', ...response } },
  );
}

/**
 * The request id of a `shutdown_request` the lead sent. 2.1.45 shows the payload alone; 2.1.330
 * appends instructions after it, so only the first line is the JSON payload.
 */
function shutdownRequestIdOf(message: TeammateMessage): string | undefined {
  let payload: Record<string, unknown> | undefined = message.payload;
  if (payload === undefined) {
    try {
      payload = JSON.parse(message.text.split('\n')[0] ?? '') as Record<string, unknown>;
    } catch {
      return undefined;
    }
  }
  return payload?.type === 'shutdown_request' && typeof payload.requestId === 'string'
    ? payload.requestId
    : undefined;
}

/** Options of {@link teammateScript}. */
export interface TeammateScriptOptions {
  /** Called when the teammate's model call for {@link HOLD_MESSAGE} arrived (it is then held open). */
  onHeld?: () => void;
}

/**
 * The scripted model's part: a side request (no tools) gets a text; the teammate (its
 * conversation holds `<teammate-message teammate_id="team-lead">`) sends the lead
 * {@link TEAMMATE_REPLY} once, approves a `shutdown_request`, holds a call that carries
 * {@link HOLD_MESSAGE} open until the client goes away, and otherwise ends its turn.
 */
export function teammateScript(options: TeammateScriptOptions = {}): Script {
  return async (request, context) => {
    if (toolNames(request).length === 0) return text('Scripted side answer');
    if (!allTeammateMessages(request).some((message) => message.from === 'team-lead'))
      return text('This script has a part for alice only.');
    const latest = teammateMessages(request).filter((message) => message.from === 'team-lead');
    const shutdownId = latest.map(shutdownRequestIdOf).find((id) => id !== undefined);
    if (shutdownId !== undefined && !sent(request, 'shutdown_response'))
      return sendMessage(request, { shutdownResponse: shutdownId });
    if (latest.some((message) => message.text.includes(HOLD_MESSAGE))) {
      options.onHeld?.();
      await new Promise((resolve) => context.signal.addEventListener('abort', resolve));
      return text('Held until the client went away.');
    }
    if (!sent(request, 'message'))
      return sendMessage(request, { content: TEAMMATE_REPLY, summary: 'alice is here' });
    return text('Told the lead; waiting.');
  };
}

/** Whether a process with this pid exists now (`/proc/<pid>`). */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
