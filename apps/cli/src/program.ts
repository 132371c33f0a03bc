import { Command, CommanderError, Option } from 'commander';
import packageJson from '../package.json' with { type: 'json' };
import {
  collectTaskIdArguments,
  parseNonEmptyArgument,
  parseTaskIdArgument,
} from './argument-parsers.js';
import type { CommandContext, GlobalOptions } from './context.js';
import { EXIT_USAGE } from './exit-codes.js';
import type { OutputStreams } from './output-streams.js';
import { addHeadlessFlags } from './run/headless-flags.js';
import { escapeTerminalText } from './terminal-text.js';

/** The version printed by `muster --version`. */
export const CLI_VERSION: string = packageJson.version;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each command declares its own arguments
type Action = (context: CommandContext, ...values: any[]) => Promise<number | void>;

/** Where a run leaves its exit code (commands return it instead of setting process.exitCode). */
export interface RunState {
  exitCode: number;
  /**
   * `--json` is on the command line: commander's own errors are not printed as text, the
   * run reports them as `{"error":{"code":"USAGE",…}}` like every other error.
   */
  jsonErrors?: boolean;
}

/** Where commander writes help and its own errors (`muster: error: …`, like every other error). */
function outputFor(streams: OutputStreams, state: RunState) {
  return {
    writeOut: (text: string) => streams.stdout.write(text),
    writeErr: (text: string) => {
      if (!state.jsonErrors) streams.stderr.write(text);
    },
    // Commander echoes the unknown option or bad value: escape it like every other error.
    outputError: (text: string, write: (text: string) => void) => {
      if (!state.jsonErrors) write(`muster: ${escapeTerminalText(text, { keepLineBreaks: true })}`);
    },
  };
}

function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((line) => `  $ ${line}`).join('\n')}\n`;
}

/**
 * Builds the `muster` command tree. Each action loads its command module on first use, so
 * `muster --help` and `--version` never load the packages, ink or react.
 */
export function createProgram(
  environment: Record<string, string | undefined>,
  streams: OutputStreams,
  state: RunState = { exitCode: 0 },
): Command {
  const program = new Command('muster');
  program
    .description(
      "Manage, inspect and watch teams of coding agents on disk: muster's own, or Claude Code's with --root ~/.claude.",
    )
    .version(CLI_VERSION, '-v, --version', 'print the version')
    .helpOption('-h, --help', 'show help (also: muster <command> --help)')
    .option(
      '--root <dir>',
      'folder holding teams/ and tasks/ (default: $MUSTER_HOME, else ~/.muster; use ~/.claude or $CLAUDE_CONFIG_DIR for Claude Code teams)',
      parseNonEmptyArgument,
    )
    .option(
      '--team <name>',
      'team to act on (default: $MUSTER_TEAM, else the only team under the root)',
      parseNonEmptyArgument,
    )
    .option('--json', 'print machine-readable JSON on stdout')
    .configureHelp({ showGlobalOptions: true, sortSubcommands: false })
    .showSuggestionAfterError(true)
    .showHelpAfterError('(add --help for usage and examples)')
    .configureOutput(outputFor(streams, state))
    .exitOverride();
  program.addHelpText(
    'after',
    examples(
      'muster demo                       # a demo team in a temp folder, then watch it',
      'muster team create my-team',
      'muster tasks add "Write the parser" --description "..."',
      'muster send alpha "Please take task 1"',
      'muster watch',
      "muster doctor --root ~/.claude    # check Claude Code's team files",
    ),
  );

  const run =
    (load: () => Promise<Action>) =>
    async (...parameters: unknown[]) => {
      const command = parameters[parameters.length - 1] as Command;
      const values = parameters.slice(0, -1);
      const { createContext } = await import('./context.js');
      const context = createContext(command.optsWithGlobals<GlobalOptions>(), environment, streams);
      const action = await load();
      const exitCode = await action(context, ...values);
      if (typeof exitCode === 'number') state.exitCode = exitCode;
    };
  const leaf = (parent: Command, name: string, description: string) =>
    parent
      .command(name)
      .description(description)
      .configureOutput(outputFor(streams, state))
      .showHelpAfterError('(add --help for usage and examples)')
      .exitOverride();

  // muster team …
  const team = leaf(program, 'team', 'create, list, show and delete teams');
  team.addHelpText(
    'after',
    examples('muster team create my-team', 'muster team list', 'muster team show my-team'),
  );
  leaf(team, 'create', 'create a team with its lead (team-lead) as the only member')
    .argument(
      '<name>',
      'team name (letters and digits; accents are dropped, other characters become "-")',
    )
    .option('--description <text>', 'what the team is for')
    .option('--lead-model <model>', "the lead's model, e.g. claude-opus-4-6")
    .option('--cwd <dir>', "the lead's working directory (default: the current directory)")
    .addHelpText(
      'after',
      examples('muster team create "Docs Team" --description "Rewrite the docs"'),
    )
    .action(run(async () => (await import('./commands/team-command.js')).teamCreate));
  leaf(team, 'list', 'list the teams under the root')
    .addHelpText('after', examples('muster team list', 'muster team list --root ~/.claude --json'))
    .action(run(async () => (await import('./commands/team-command.js')).teamList));
  leaf(team, 'show', 'show a team: members, their state, inboxes and tasks')
    .argument('[name]', 'team name (default: --team, $MUSTER_TEAM, or the only team)')
    .addHelpText('after', examples('muster team show', 'muster team show my-team --json'))
    .action(run(async () => (await import('./commands/team-command.js')).teamShow));
  leaf(team, 'delete', "delete a team's folders (teams/<name> and tasks/<name>)")
    .argument('<name>', 'team name (must be typed out in full)')
    .option(
      '--force',
      'delete even with unfinished tasks or unread messages (lost for good), after removing members whose processes are gone (live members still refuse)',
    )
    .addHelpText(
      'after',
      `\nA team with unfinished tasks or unread messages is deleted only with --force, or after a yes on the terminal.${examples('muster team delete my-team', 'muster team delete my-team --force')}`,
    )
    .action(run(async () => (await import('./commands/team-command-delete.js')).teamDelete));

  // muster send …
  leaf(
    program,
    'send',
    "append a message to a member's inbox (or every member's, with --broadcast)",
  )
    .argument('[to]', 'recipient agent name (omit with --broadcast)')
    .argument('[text]', 'the message; "-" reads it from standard input')
    .option('--broadcast', 'send to every member except the sender')
    .option('--summary <words>', 'a 5-10 word preview shown in the UI')
    .option(
      '--from <agent>',
      'sender name: a member (default: team-lead), or with --external anyone outside the team',
    )
    .option(
      '--external',
      'send as someone outside the team (a CI job, a person): --from need not be a member, may not be one, and the message says it came from outside',
    )
    .addHelpText(
      'after',
      examples(
        'muster send alpha "Please take task 1"',
        'muster send team-lead "Build 512 failed" --from ci --external',
        'muster send --broadcast "Stand-up in 5 minutes" --summary "Stand-up soon"',
        'muster send team-lead "Done with #2" --from alpha',
        'git diff --stat | muster send alpha - --summary "What changed"',
      ),
    )
    .action(run(async () => (await import('./commands/send-command.js')).sendCommand));

  // muster inbox …
  leaf(program, 'inbox', "read an agent's inbox, protocol messages in words")
    .argument('<agent>', 'whose inbox')
    .option('--unread', 'only unread messages')
    .option('--mark-read', 'mark the listed messages read')
    .addHelpText('after', examples('muster inbox team-lead --unread', 'muster inbox alpha --json'))
    .action(run(async () => (await import('./commands/inbox-command.js')).inboxCommand));

  // muster tasks …
  const tasks = leaf(program, 'tasks', "work with the team's shared task list");
  tasks.addHelpText(
    'after',
    examples(
      'muster tasks add "Write the parser"',
      'muster tasks add "Test the parser" --blocked-by 1',
      'muster tasks claim 1 --agent alpha',
      'muster tasks done 1',
    ),
  );
  leaf(tasks, 'list', 'list tasks with status, owner and blockers')
    .option('--all', 'include internal tracking tasks')
    .addHelpText('after', examples('muster tasks list', 'muster tasks list --json'))
    .action(run(async () => (await import('./commands/tasks-command.js')).tasksList));
  leaf(tasks, 'add', 'create a task')
    .argument('<subject>', 'short imperative title')
    .option('--description <text>', 'what needs doing', '')
    .option(
      '--active-form <text>',
      'shown with a spinner while in progress, e.g. "Writing the parser"',
    )
    .option('--blocked-by <ids...>', 'task ids this one waits for', collectTaskIdArguments)
    .addHelpText(
      'after',
      examples('muster tasks add "Write docs" --active-form "Writing docs" --blocked-by 1 2'),
    )
    .action(run(async () => (await import('./commands/tasks-command.js')).tasksAdd));
  leaf(tasks, 'show', 'show one task')
    .argument('<id>', 'task id', parseTaskIdArgument)
    .addHelpText('after', examples('muster tasks show 3'))
    .action(run(async () => (await import('./commands/tasks-command.js')).tasksShow));
  leaf(tasks, 'claim', 'make an agent the owner of a task (only when it is free and unblocked)')
    .argument('<id>', 'task id', parseTaskIdArgument)
    .option('--agent <name>', 'who takes it')
    .option('--from <agent>', 'the same as --agent, like the other task commands')
    .addHelpText('after', examples('muster tasks claim 1 --agent alpha'))
    .action(run(async () => (await import('./commands/tasks-command.js')).tasksClaim));
  leaf(tasks, 'update', 'change a task')
    .argument('<id>', 'task id', parseTaskIdArgument)
    .addOption(
      new Option('--status <status>', 'new status').choices([
        'pending',
        'in_progress',
        'completed',
        'deleted',
      ]),
    )
    .option('--owner <agent>', 'new owner ("" to unassign)')
    .option('--subject <text>', 'new subject')
    .option('--description <text>', 'new description')
    .option('--active-form <text>', 'new active form')
    .option('--add-blocked-by <ids...>', 'task ids this one must wait for', collectTaskIdArguments)
    .option('--add-blocks <ids...>', 'task ids that must wait for this one', collectTaskIdArguments)
    .option(
      '--remove-blocked-by <ids...>',
      'task ids this one no longer waits for',
      collectTaskIdArguments,
    )
    .option(
      '--remove-blocks <ids...>',
      'task ids that no longer wait for this one',
      collectTaskIdArguments,
    )
    .option('--from <agent>', 'who makes the change', 'team-lead')
    .option(
      '--force',
      'allow --status in_progress or completed while the task waits for unfinished tasks',
    )
    .addHelpText(
      'after',
      examples(
        'muster tasks update 2 --status in_progress --owner beta',
        'muster tasks update 3 --remove-blocked-by 1',
        'muster tasks update 4 --status deleted',
      ),
    )
    .action(run(async () => (await import('./commands/tasks-command-update.js')).tasksUpdate));
  leaf(tasks, 'done', 'mark a task completed (refused while it waits for unfinished tasks)')
    .argument('<id>', 'task id', parseTaskIdArgument)
    .option('--from <agent>', 'who completes it', 'team-lead')
    .option('--force', 'complete it even though tasks it waits for are unfinished')
    .addHelpText('after', examples('muster tasks done 1', 'muster tasks done 3 --force'))
    .action(run(async () => (await import('./commands/tasks-command-update.js')).tasksDone));
  leaf(tasks, 'block', 'make a task wait for other tasks')
    .argument('<id>', 'the task that must wait', parseTaskIdArgument)
    .requiredOption('--by <ids...>', 'the tasks it waits for', collectTaskIdArguments)
    .option('--from <agent>', 'who makes the change', 'team-lead')
    .addHelpText('after', examples('muster tasks block 3 --by 1 2'))
    .action(run(async () => (await import('./commands/tasks-command-update.js')).tasksBlock));
  leaf(tasks, 'unblock', 'remove dependencies: a task no longer waits for other tasks')
    .argument('<id>', 'the task that waits', parseTaskIdArgument)
    .requiredOption(
      '--by <ids...>',
      'the tasks it should no longer wait for',
      collectTaskIdArguments,
    )
    .option('--from <agent>', 'who makes the change', 'team-lead')
    .addHelpText('after', examples('muster tasks unblock 3 --by 1'))
    .action(run(async () => (await import('./commands/tasks-command-update.js')).tasksUnblock));

  // muster doctor / watch / demo
  leaf(program, 'doctor', 'check every file under the root and explain what is wrong')
    .option('--fix', 'repair what is safe to repair (stale locks, tasks owned by gone members)')
    .addHelpText(
      'after',
      `\nExit code 0 only when nothing is wrong.${examples('muster doctor', 'muster doctor --root ~/.claude --json', 'muster doctor --fix')}`,
    )
    .action(run(async () => (await import('./commands/doctor-command.js')).doctorCommand));
  leaf(program, 'watch', 'live dashboard of a team: members, tasks and messages')
    .argument('[team]', 'team name (default: --team, $MUSTER_TEAM, or the only team)')
    .option('--once', 'print one plain-text frame and exit (also what happens without a terminal)')
    .addHelpText(
      'after',
      `\nKeys: tab or left/right move between panes, up/down select, enter opens, esc goes back, q quits.${examples('muster watch', 'muster watch conf-team --root ~/.claude', 'muster watch --once')}`,
    )
    .action(run(async () => (await import('./commands/watch-command.js')).watchCommand));
  const demo = leaf(
    program,
    'demo',
    'create a small demo team (lead + 3 members, tasks, messages) to try watch on; with --run, run a scripted team offline',
  )
    .option('--watch', 'open the dashboard on it right away')
    .option(
      '--run',
      'run a real team on a throwaway git repository, its model a scripted test double (interactive; -p: headless)',
    );
  addHeadlessFlags(demo, { permissionMode: 'acceptEdits', teammateMode: 'auto' })
    .addHelpText(
      'after',
      `\nWithout --root the demo goes into a new temporary folder, printed at the end.\nWith --run the team is led by @muster/scripted-model's demo-team script (a test double, not a model; every screen and line says so), with --permission-mode acceptEdits and --allowed-tools "Bash(node --test:*) Edit(src/**) Edit(test/**) Edit(README.md)" unless given (so you are asked for alice's npm test and bob's plan), and --teammate-mode auto: alice and bob in-process, carol in a pane (a tmux pane inside tmux, else a PTY); --teammate-mode in-process|pty|tmux puts all three there. It runs in the interactive app of muster run (its prompt is on the prompt line: press Enter), or headless with -p. Exit codes as for muster run.${examples('muster demo', 'muster demo --root /tmp/muster-demo --watch', 'muster demo --run', 'muster demo --run -p --output-format stream-json')}`,
    )
    .action(run(async () => (await import('./commands/demo-command.js')).demoCommand));

  // muster teammate: started by a lead's backend; its flags are parsed by @muster/agents.
  leaf(program, 'teammate', "run one teammate of a muster team in this terminal (a lead's pane)")
    .argument('[flags...]', 'Claude Code’s teammate flags: --agent-id --agent-name --team-name …')
    .helpOption(false)
    .allowUnknownOption()
    .allowExcessArguments()
    .addHelpText(
      'after',
      `\nA lead starts it in a tmux, iTerm2 or pty pane; "muster teammate --help" lists its flags.${examples('muster teammate --agent-id alpha@my-team --agent-name alpha --team-name my-team --agent-color blue --parent-session-id <id> --lead-verify-key <key>')}`,
    )
    .action(run(async () => (await import('./commands/teammate-command.js')).teammateCommand));

  // muster run
  const runTeam = leaf(
    program,
    'run',
    'lead a team from the terminal (interactive); muster run -p "<prompt>" runs it headless',
  ).argument('[prompt]', "the lead's prompt");
  addHeadlessFlags(runTeam)
    .addHelpText(
      'after',
      `\nThe model: ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN) and ANTHROPIC_BASE_URL, as the Anthropic SDK reads them.\nInteractive (a terminal, no -p): the lead's conversation, the teammates, the tasks; you answer permission and plan requests. Keys: Enter sends the prompt line (to the lead, or to the selected teammate), Tab/Shift-Tab or left/right select a teammate, y/a/n answer a request (allow once, allow for the session, deny or reject with a typed reason), l puts it aside and Ctrl-R brings it back, Esc interrupts the lead's turn, Ctrl-O shows tool results, PgUp/PgDn scroll, Ctrl-C shuts the team down (twice: at once).\nHeadless (-p): asks are decided by the lead's rules and mode; whatever they do not allow is denied, and every denial is in the output.\nExit codes: 0 done, 1 failed, 2 wrong command line, 3 stopped by --timeout or a signal (the team was shut down).${examples(
        'muster run',
        'muster run "Add a slugify() function with tests, using two teammates"',
        'muster run -p "Add a slugify() function with tests, using two teammates"',
        'muster run -p "Fix the failing tests" --output-format stream-json --timeout 600',
        'muster run -p "Refactor src/" --permission-mode acceptEdits --allowed-tools "Bash(npm test:*)"',
      )}`,
    )
    .action(run(async () => (await import('./commands/run-command.js')).runCommand));

  return program;
}

/**
 * Runs `muster` with the arguments (without `node` and the script) and returns the exit
 * code. Never throws: errors are printed to stderr.
 */
export async function runCli(
  argv: readonly string[],
  environment: Record<string, string | undefined> = process.env,
  streams: OutputStreams = { stdout: process.stdout, stderr: process.stderr },
): Promise<number> {
  const json = argv.includes('--json');
  const state: RunState = { exitCode: 0, jsonErrors: json };
  const program = createProgram(environment, streams, state);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return state.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and --version end with exit code 0; every other commander error is a usage
      // error that commander has already printed (as text), or that goes out as JSON here.
      if (error.exitCode === 0) return 0;
      if (json) {
        const said = error.message.replace(/^error: /, '').trim();
        const message =
          error.code === 'commander.help'
            ? 'Say which command to run: muster <command> (muster --help lists them).'
            : `${said.charAt(0).toUpperCase()}${said.slice(1)}${said.endsWith('.') ? '' : '.'} Add --help for usage and examples.`;
        const details = { reason: error.code };
        streams.stderr.write(
          `${JSON.stringify({ error: { code: 'USAGE', message, details } }, null, 2)}\n`,
        );
      }
      return EXIT_USAGE;
    }
    const { reportError } = await import('./report-error.js');
    return reportError(error, { json, environment, streams });
  }
}
