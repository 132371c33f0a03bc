import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Writes `teams/{team}/config.json` with a lead and the given teammates (blue, green, …). */
export function writeTeamConfig(root: string, team: string, teammates: string[]): string {
  const colors = ['blue', 'green', 'yellow', 'purple', 'orange', 'pink', 'cyan', 'red'];
  const member = (name: string, extra: Record<string, unknown>) => ({
    agentId: `${name}@${team}`,
    name,
    agentType: 'general-purpose',
    model: 'claude-opus-4-6',
    joinedAt: 1_795_350_958_601,
    tmuxPaneId: 'in-process',
    cwd: root,
    subscriptions: [],
    ...extra,
  });
  const config = {
    name: team,
    createdAt: 1_795_350_958_601,
    leadAgentId: `team-lead@${team}`,
    members: [
      member('team-lead', { agentType: 'team-lead', tmuxPaneId: '' }),
      ...teammates.map((name, index) => member(name, { color: colors[index % colors.length] })),
    ],
  };
  const file = path.join(root, 'teams', team, 'config.json');
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(config, null, 2));
  return file;
}

/** The inbox file path of an agent. */
export function inboxFile(root: string, team: string, agent: string): string {
  return path.join(root, 'teams', team, 'inboxes', `${agent}.json`);
}

/** Texts stored for an agent (inbox and archive), with how often each occurs. */
export function storedTextCounts(root: string, team: string, agent: string): Map<string, number> {
  const counts = new Map<string, number>();
  const add = (entry: { text: string }) =>
    counts.set(entry.text, (counts.get(entry.text) ?? 0) + 1);
  const inbox = inboxFile(root, team, agent);
  (JSON.parse(readFileSync(inbox, 'utf8')) as Array<{ text: string }>).forEach(add);
  let archive = '';
  try {
    archive = readFileSync(inbox.replace(/\.json$/, '.archive.jsonl'), 'utf8');
  } catch (error) {
    if ((error as { code?: string }).code !== 'ENOENT') throw error;
  }
  for (const line of archive.split('\n')) if (line) add(JSON.parse(line) as { text: string });
  return counts;
}

/**
 * Writes a v2 team config: `muster` adds `protocolVersion: 2` (a team muster made),
 * `claude-code` adds a `leadProcess` (a Claude Code 2.1.330 session team).
 */
export function writeTeamConfigV2(
  root: string,
  team: string,
  teammates: string[],
  kind: 'muster' | 'claude-code',
): string {
  const file = writeTeamConfig(root, team, teammates);
  const config = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  const extra =
    kind === 'muster'
      ? { protocolVersion: 2 }
      : {
          leadProcess: {
            pid: process.pid,
            pidSpace: 'vm#pid:[4026531836]',
            claimedAt: 1_795_350_958_598,
            procStart: '50654',
          },
        };
  writeFileSync(file, JSON.stringify({ ...config, ...extra }, null, 2));
  return file;
}
