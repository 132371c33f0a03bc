// Loads the built package in a process where `node-pty` cannot be resolved (as on a machine
// where its native build failed, R26), then prints what the pty backend says, as JSON.
import { register } from 'node:module';

const hideNodePty = `
export async function resolve(specifier, context, nextResolve) {
  if (specifier === 'node-pty') {
    const error = new Error("Cannot find package 'node-pty' (hidden by the test)");
    error.code = 'ERR_MODULE_NOT_FOUND';
    throw error;
  }
  return nextResolve(specifier, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hideNodePty)}`);

const { createPtyBackend } = await import('../dist/index.js');
const backend = createPtyBackend();
const availability = await backend.availability();
let spawnError;
try {
  await backend.spawn({
    root: process.cwd(),
    teamName: 'alpha',
    agentName: 'worker',
    agentId: 'worker@alpha',
    cwd: process.cwd(),
    command: { file: 'true', args: [] },
    readiness: 'external',
  });
} catch (error) {
  spawnError = { code: error.code, message: error.message };
}
await backend.close();
console.log(JSON.stringify({ imported: true, availability, spawnError }));
