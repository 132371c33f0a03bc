// Child process for the join-versus-delete race. Arguments: root team action name delayMs
// goFile, where action is "join" or "delete". Prints "ok <name>" or "error <code>".
import { addMember, deleteTeam } from '../../dist/index.js';
import { waitForGo } from './wait-for-go.mjs';

const [root, team, action, name, delayMs, goFile] = process.argv.slice(2);
await waitForGo(goFile);
await new Promise((resolve) => setTimeout(resolve, Number(delayMs)));
try {
  if (action === 'delete') {
    await deleteTeam(root, team, { deadlineMs: 60_000 });
  } else {
    await addMember(
      root,
      team,
      {
        name,
        agentType: 'general-purpose',
        model: 'claude-opus-4-6',
        prompt: 'Join.',
        planModeRequired: false,
        cwd: '/work/repo',
        backendType: 'pty',
        tmuxPaneId: '',
      },
      { deadlineMs: 60_000 },
    );
  }
  process.stdout.write(`ok ${name}\n`);
} catch (error) {
  if (typeof error?.code !== 'string') throw error;
  process.stdout.write(`error ${error.code}\n`);
}
