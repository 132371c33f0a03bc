import { MusterError, sanitizeTeamName } from '@muster/protocol';
import { createTaskStore } from '@muster/tasks';
import { createTeam, listTeams } from '@muster/teams';
import path from 'node:path';
import { CliError } from '../cli-error.js';
import { printJson, printLine, type CommandContext } from '../context.js';
import { formatMusterCommand } from '../printed-command.js';
import { paint, symbol } from '../terminal-style.js';
import { escapeTerminalText } from '../terminal-text.js';
import { loadTeamSnapshot } from '../watch/load-team-snapshot.js';
import { buildDashboardModel, describeSession } from '../watch/dashboard-model.js';
import { listEndedSessions, loadEndedSessionSnapshot } from '../session/ended-sessions.js';
import { sessionStateOf } from '../session/session-state.js';
import { terminalSafeModel } from '../watch/terminal-safe-model.js';
import { howToCreateTeam, resolveTeamOrEndedSession } from './resolve-team.js';
import { describeMemberStates, readMemberStates } from '../watch/member-state-summary.js';

/** `muster team create <name>`. */
export async function teamCreate(
  context: CommandContext,
  name: string,
  options: { description?: string; leadModel?: string; cwd?: string },
) {
  try {
    sanitizeTeamName(name);
  } catch (error) {
    // A name that cannot become a folder is a wrong command line, like any bad value.
    if (!MusterError.hasCode(error, 'INVALID_NAME')) throw error;
    throw new CliError({
      code: 'USAGE',
      message: error.message,
      cause: error,
      details: error.details,
    });
  }
  const result = await createTeam({
    root: context.root,
    name,
    cwd: path.resolve(options.cwd ?? process.cwd()),
    ...(options.description === undefined ? {} : { description: options.description }),
    ...(options.leadModel === undefined ? {} : { leadModel: options.leadModel }),
  });
  if (context.json) {
    printJson(context, {
      team: result.teamName,
      configPath: result.configPath,
      leadAgentId: result.leadAgentId,
      config: result.config,
    });
    return;
  }
  const renamed =
    result.teamName !== name
      ? ` (from "${escapeTerminalText(name)}"${/-\d+$/.test(result.teamName) ? '; the name was taken' : ''})`
      : '';
  printLine(
    context,
    `${paint(context.style, 'green', symbol(context.style, 'ok'))} Created team ${paint(context.style, 'bold', result.teamName)}${renamed} with its lead, ${result.leadAgentId}.`,
  );
  printLine(context, `  config: ${escapeTerminalText(result.configPath)}`);
  const team = result.teamName;
  printLine(
    context,
    `Next: ${formatMusterCommand(context, ['tasks', 'add', '<subject>'], { team })}`,
  );
  printLine(
    context,
    `      ${formatMusterCommand(context, ['watch', team], { team, teamAsArgument: true })}`,
  );
}

/** `muster team list`. */
export async function teamList(context: CommandContext) {
  const { teams, problems } = await listTeams(context.root);
  const rows = [];
  for (const team of teams) {
    const listing = await createTaskStore({ root: context.root, team: team.name }).list();
    const session = sessionStateOf(team.config);
    rows.push({
      name: team.name,
      session: session ? session.state : null,
      description: team.config.description ?? null,
      members: team.config.members.map((member) => member.name),
      memberStates: await readMemberStates(context.root, team.name),
      tasks: {
        total: listing.tasks.length,
        completed: listing.tasks.filter((listed) => listed.task.status === 'completed').length,
      },
      configPath: team.configPath,
    });
  }
  // Sessions that ended keep their task list (Claude Code removes only the team folder).
  const ended = [];
  for (const session of await listEndedSessions(context.root)) {
    const listing = await createTaskStore({ root: context.root, team: session.team }).list();
    ended.push({
      name: session.team,
      tasks: {
        total: listing.tasks.length,
        completed: listing.tasks.filter((listed) => listed.task.status === 'completed').length,
      },
    });
  }
  if (context.json) {
    printJson(context, { root: context.root, teams: rows, endedSessions: ended, problems });
    return;
  }
  if (rows.length === 0 && ended.length === 0) {
    printLine(context, `No teams under ${path.join(context.root, 'teams')}.`);
    printLine(context, howToCreateTeam(context));
  }
  // Names and descriptions come from files anyone may write: escaped before printing.
  const shownRows = rows.map((row) => ({
    ...row,
    name: escapeTerminalText(row.name),
    description: row.description === null ? null : escapeTerminalText(row.description),
  }));
  const width = Math.max(0, ...shownRows.map((row) => row.name.length));
  for (const row of shownRows) {
    printLine(
      context,
      `${paint(context.style, 'bold', row.name.padEnd(width))}  ${row.session ? `session ${row.session}  ` : ''}${row.members.length} member${row.members.length === 1 ? '' : 's'} (${describeMemberStates(row.memberStates)})  ${row.tasks.completed}/${row.tasks.total} tasks done${row.description ? `  ${paint(context.style, 'dim', row.description)}` : ''}`,
    );
  }
  if (ended.length > 0) {
    if (rows.length === 0)
      printLine(context, `No team is running under ${path.join(context.root, 'teams')}.`);
    printLine(context, 'Ended sessions (task lists Claude Code keeps after /exit):');
    for (const session of ended) {
      printLine(
        context,
        `  ${escapeTerminalText(session.name)}  ${session.tasks.completed}/${session.tasks.total} tasks done`,
      );
    }
  }
  for (const problem of problems) {
    printLine(
      context,
      `${paint(context.style, 'yellow', symbol(context.style, 'warning'))} ${escapeTerminalText(problem.folder)}: ${escapeTerminalText(problem.reason)}`,
    );
  }
}

/** `muster team show [name]`. */
export async function teamShow(context: CommandContext, name: string | undefined) {
  const { team, ended, note } = await resolveTeamOrEndedSession(context, name);
  if (note !== undefined) context.streams.stderr.write(`${escapeTerminalText(note)}\n`);
  const snapshot = ended
    ? await loadEndedSessionSnapshot(context.root, team)
    : await loadTeamSnapshot(context.root, team);
  const unsafeModel = buildDashboardModel(snapshot);
  if (context.json) {
    const model = unsafeModel;
    printJson(context, {
      team,
      ended,
      session: model.session ?? null,
      description: model.description ?? null,
      configPath: ended ? null : path.join(context.root, 'teams', team, 'config.json'),
      members: model.members,
      tasks: model.tasks,
      hiddenTaskCount: model.hiddenTaskCount,
      messages: model.feed.length,
      problems: model.problems,
      config: snapshot.config,
    });
    return;
  }
  // Every name, description and problem is escaped for the terminal (JSON stays exact).
  const model = terminalSafeModel(unsafeModel);
  const { style } = context;
  printLine(
    context,
    `Team ${paint(style, 'bold', model.teamName)}${model.description ? `: ${model.description}` : ''}`,
  );
  if (model.session) printLine(context, `  ${describeSession(model.session)}`);
  if (!ended) {
    printLine(
      context,
      `  config: ${escapeTerminalText(path.join(context.root, 'teams', team, 'config.json'))}`,
    );
  }
  printLine(context, '');
  printLine(context, paint(style, 'bold', 'Members'));
  if (model.members.length === 0)
    printLine(context, '  (none: the config went with the team folder)');
  const nameWidth = Math.max(0, ...model.members.map((member) => member.name.length));
  for (const member of model.members) {
    printLine(
      context,
      `  ${member.name.padEnd(nameWidth)}  ${member.backend.padEnd(10)}  ${member.state.padEnd(22)}  ${member.unread} unread${member.model ? `  ${paint(style, 'dim', member.model)}` : ''}`,
    );
  }
  const counts = { pending: 0, in_progress: 0, completed: 0 };
  for (const task of model.tasks) counts[task.status] += 1;
  printLine(context, '');
  printLine(
    context,
    `${paint(style, 'bold', 'Tasks')}  ${model.tasks.length} (${counts.completed} completed, ${counts.in_progress} in progress, ${counts.pending} pending)${model.hiddenTaskCount ? `, ${model.hiddenTaskCount} internal hidden` : ''}; see ${formatMusterCommand(context, ['tasks', 'list'], { team })}`,
  );
  printLine(
    context,
    `${paint(style, 'bold', 'Messages')}  ${model.feed.length}; see ${formatMusterCommand(context, ['watch', team], { team, teamAsArgument: true })}`,
  );
  for (const problem of model.problems) {
    printLine(context, `${paint(style, 'yellow', symbol(style, 'warning'))} ${problem}`);
  }
}
