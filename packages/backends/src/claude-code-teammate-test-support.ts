// Test support for running the real Claude Code 2.1.45 as a pane teammate of a team the test
// leads: its interactive first-run state, the team (config + spawn prompt, as Claude Code's own
// lead writes them for a pane teammate), and the scripted model's part for the teammate.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createMailbox } from '@muster/mailbox';
import {
  isTeammateRequest,
  teammateMessages,
  toolCalls,
  toolNames,
  type Reply,
  type Script,
  type ScriptRequest,
} from '@muster/scripted-model';
import { addMember, createTeam, updateTeamConfig } from '@muster/teams';
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
 * Creates the team in the 2.1.45 dialect under `root` (the teammate's `CLAUDE_CONFIG_DIR`),
 * adds the teammate with `backendType "tmux"` and `tmuxPaneId ""`, and writes its spawn
 * prompt as the first entry of its inbox, from `team-lead`.
 */
export async function createLeadTeam(root: string, cwd: string): Promise<LeadTeam> {
  const { teamName, config } = await createTeam({
    root,
    name: TEAMMATE_TEAM,
    description: 'A muster lead and one real Claude Code teammate in a tmux pane',
    cwd,
    dialect: 'v1',
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
  const mailbox = createMailbox({ root, team: teamName });
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

const sent = (request: ScriptRequest, type: string): boolean =>
  toolCalls(request).some((call) => call.name === 'SendMessage' && call.input.type === type);

/** Options of {@link teammateScript}. */
export interface TeammateScriptOptions {
  /** Called when the teammate's model call for {@link HOLD_MESSAGE} arrived (it is then held open). */
  onHeld?: () => void;
}

/**
 * The scripted model's part: a side request (no tools) gets a text; the teammate (its first
 * user message is `<teammate-message teammate_id="team-lead">`) sends the lead
 * {@link TEAMMATE_REPLY} once, approves a `shutdown_request`, holds a call that carries
 * {@link HOLD_MESSAGE} open until the client goes away, and otherwise ends its turn.
 */
export function teammateScript(options: TeammateScriptOptions = {}): Script {
  return async (request, context) => {
    if (toolNames(request).length === 0) return text('Scripted side answer');
    if (!isTeammateRequest(request)) return text('This script has a part for alice only.');
    const latest = teammateMessages(request).filter((message) => message.from === 'team-lead');
    const shutdown = latest.find((message) => message.payload?.type === 'shutdown_request');
    if (shutdown !== undefined && !sent(request, 'shutdown_response'))
      return toolUse('SendMessage', {
        type: 'shutdown_response',
        request_id: shutdown.payload?.requestId,
        approve: true,
      });
    if (latest.some((message) => message.text.includes(HOLD_MESSAGE))) {
      options.onHeld?.();
      await new Promise((resolve) => context.signal.addEventListener('abort', resolve));
      return text('Held until the client went away.');
    }
    if (!sent(request, 'message'))
      return toolUse('SendMessage', {
        type: 'message',
        recipient: 'team-lead',
        content: TEAMMATE_REPLY,
        summary: 'alice is here',
      });
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
