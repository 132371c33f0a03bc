// Shared by the worker scripts: announce readiness, then wait for the start signal file so
// that every process begins the race at the same moment.
import { access } from 'node:fs/promises';

export async function waitForStart(startFile) {
  process.stdout.write('ready\n');
  for (;;) {
    try {
      await access(startFile);
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
}
