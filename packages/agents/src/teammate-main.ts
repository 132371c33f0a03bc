// The executable of a process teammate (`dist/teammate-main.js`, `PROCESS_TEAMMATE_ENTRY`): a
// lead starts it as `node dist/teammate-main.js --agent-id … --lead-verify-key …` in a pane or
// on a PTY. Everything it does is in `runProcessTeammateCommand`.
import { runProcessTeammateCommand } from './process-teammate-command.js';

// A pane closed under a running write: stop writing instead of crashing on EPIPE.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    stream.write = () => true;
  });
}

process.exitCode = await runProcessTeammateCommand({ argv: process.argv.slice(2) });
