// Child process: creates a team with the requested name after the barrier.
// Arguments: root name goFile. Prints the final team name.
import { createTeam } from '../../dist/index.js';
import { waitForGo } from './wait-for-go.mjs';

const [root, name, goFile] = process.argv.slice(2);
await waitForGo(goFile);
const result = await createTeam({ root, name, cwd: '/work/repo', leadModel: 'claude-opus-4-6' });
process.stdout.write(`${result.teamName}\n`);
