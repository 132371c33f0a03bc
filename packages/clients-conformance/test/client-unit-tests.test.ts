// The Python and Go clients' own unit tests, run with each language's standard tooling.
import { describe, expect, it } from 'vitest';
import {
  goClientDirectory,
  goEnvironment,
  pythonClientDirectory,
  runProcess,
} from './support/clients.js';

describe('client unit tests', () => {
  it('python3 -m unittest passes', async () => {
    const { stderr } = await runProcess(
      'python3',
      ['-W', 'error', '-m', 'unittest', 'discover', '-s', 'tests', '-t', '.'],
      { cwd: pythonClientDirectory },
    );
    const ran = /Ran (\d+) tests? in/.exec(stderr);
    expect(Number(ran?.[1])).toBeGreaterThanOrEqual(27);
    expect(stderr).toMatch(/\nOK\s*$/);
    expect(stderr).not.toMatch(/skipped/);
  });

  it('go vet, gofmt and go test pass', async () => {
    const environment = goEnvironment();
    await runProcess('go', ['vet', './...'], { cwd: goClientDirectory, env: environment });
    const formatted = await runProcess('gofmt', ['-l', '.'], { cwd: goClientDirectory });
    expect(formatted.stdout).toBe('');
    const { stdout } = await runProcess('go', ['test', '-count=1', '-v', './...'], {
      cwd: goClientDirectory,
      env: environment,
    });
    expect(stdout).toMatch(/^ok\s+muster\.dev\/clients\/go\/muster\s/m);
    expect(stdout).not.toMatch(/--- (FAIL|SKIP)/);
    expect(stdout.match(/^--- PASS/gm)?.length).toBeGreaterThanOrEqual(20);
  });
});
