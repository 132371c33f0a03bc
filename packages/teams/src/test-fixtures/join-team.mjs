// Child process: joins a team `count` times with the requested name, after the barrier.
// Arguments: root team name count goFile. Prints one JSON line per member added.
import { addMember } from '../../dist/index.js';
import { waitForGo } from './wait-for-go.mjs';

const [root, team, name, count, goFile] = process.argv.slice(2);
await waitForGo(goFile);
for (let index = 0; index < Number(count); index += 1) {
  const member = await addMember(
    root,
    team,
    {
      name,
      agentType: 'general-purpose',
      model: 'claude-opus-4-6',
      prompt: `You are ${name}.`,
      planModeRequired: false,
      cwd: '/work/repo',
      backendType: 'pty',
      tmuxPaneId: '',
    },
    { deadlineMs: 60_000 },
  ); // a loaded test machine must not turn into a false failure
  process.stdout.write(`${JSON.stringify(member)}\n`);
}
