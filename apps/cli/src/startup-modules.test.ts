import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, builtCli } from './test-support/reference.js';

beforeAll(assertBuilt);

const distDirectory = path.dirname(builtCli);

/** `import … from "x"`, `export … from "x"` and `import "x"`; never `import("x")`. */
const staticImport =
  /(?:^|[\n;])\s*(?:import|export)\s+(?:[\w$*{}\s,]+?\s+from\s*)?["']([^"']+)["']/g;

/**
 * Every package a built module loads before it runs: its static imports, followed through
 * the bundle's own chunks. Dynamic `import()` is left out, as Node loads it only on demand.
 */
function packagesLoadedWith(fileName: string): Set<string> {
  const packages = new Set<string>();
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const match of readFileSync(path.join(distDirectory, file), 'utf8').matchAll(
      staticImport,
    )) {
      const specifier = match[1] ?? '';
      if (specifier.startsWith('./')) visit(specifier.slice(2));
      else packages.add(specifier);
    }
  };
  visit(fileName);
  return packages;
}

function builtFile(prefix: string): string {
  const found = readdirSync(distDirectory).find(
    (name) => name.startsWith(`${prefix}-`) && name.endsWith('.js'),
  );
  if (found === undefined) throw new Error(`No ${prefix}-*.js in ${distDirectory}`);
  return found;
}

describe('start-up: the drawing libraries load only with the live dashboard', () => {
  it.each([
    'team-command',
    'send-command',
    'inbox-command',
    'tasks-command',
    'doctor-command',
    'run-command',
    'demo-run',
  ])('%s loads neither ink nor react', (command) => {
    const loaded = packagesLoadedWith(builtFile(command));
    expect([...loaded].filter((name) => name === 'ink' || name === 'react')).toEqual([]);
  });

  it('the entry point and `watch` before it goes live load neither', () => {
    for (const file of ['cli.js', builtFile('watch-command')]) {
      const loaded = packagesLoadedWith(file);
      expect([...loaded].filter((name) => name === 'ink' || name === 'react')).toEqual([]);
    }
  });

  it('the live dashboard does load ink (so the check above can see it)', () => {
    expect(packagesLoadedWith(builtFile('live-dashboard')).has('ink')).toBe(true);
  });

  it('the interactive app of run and demo --run loads ink only when it runs', () => {
    expect(packagesLoadedWith(builtFile('run-interactive')).has('ink')).toBe(true);
  });
});
