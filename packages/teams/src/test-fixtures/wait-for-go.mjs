// Shared start barrier for the test children: print "ready", then wait until the test
// creates the go file, so that every child starts its work at the same moment.
import { existsSync } from 'node:fs';

export async function waitForGo(goFile) {
  process.stdout.write('ready\n');
  while (!existsSync(goFile)) await new Promise((resolve) => setTimeout(resolve, 2));
}
