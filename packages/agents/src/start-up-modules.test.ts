// What loading @muster/agents costs a process at start-up: the libraries only some sessions
// need (yaml for agent definition files, @xterm/headless for PTY members' screens) are loaded
// when first used, not with the package. Checked in a fresh Node process on the built dist.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const packageDirectory = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Runs `source` as an ES module in a new Node process (bare imports resolve from this package). */
function runModule(source: string): string {
  return execFileSync(process.execPath, ['--input-type=module', '-e', source], {
    cwd: packageDirectory,
    encoding: 'utf8',
  });
}

const LOADED = `
import { createRequire } from 'node:module';
const loaded = () => {
  const files = Object.keys(createRequire(import.meta.url).cache);
  return {
    yaml: files.some((file) => file.includes('/yaml/')),
    xterm: files.some((file) => file.includes('/@xterm/headless/')),
  };
};`;

describe('start-up modules of @muster/agents', () => {
  it('loads neither yaml nor @xterm/headless with the package, each on first use', () => {
    const output = runModule(`${LOADED}
const agents = await import('@muster/agents');
const backends = await import('@muster/backends');
const atStart = loaded();
const parsed = agents.parseAgentDefinition('---\\nname: reviewer\\ndescription: Reviews\\n---\\nReview it.', '/x/reviewer.md', 'project');
const afterParse = loaded();
const screen = backends.createTerminalScreen({ columns: 20, rows: 2 });
screen.write('hello');
const snapshot = await screen.snapshot();
screen.dispose();
console.log(JSON.stringify({ atStart, parsed: parsed.ok, afterParse, afterScreen: loaded(), line: snapshot.lines[0] }));
`);
    expect(JSON.parse(output)).toEqual({
      atStart: { yaml: false, xterm: false },
      parsed: true,
      afterParse: { yaml: true, xterm: false },
      afterScreen: { yaml: true, xterm: true },
      line: 'hello',
    });
  });
});
