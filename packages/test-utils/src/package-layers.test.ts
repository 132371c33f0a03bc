// AGENTS.md's package table says which muster packages each package may use. This test
// holds every package.json to it, so the layers are a checked rule, not only prose.
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repositoryRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** Rows of the table: `| \`name\` | \`folder\` | uses |`. */
function layerTable(): Map<string, { folder: string; uses: string }> {
  const text = readFileSync(path.join(repositoryRoot, 'AGENTS.md'), 'utf8');
  const rows = new Map<string, { folder: string; uses: string }>();
  for (const line of text.split('\n')) {
    const match = /^\| `([a-z-]+)` +\| `([a-z/-]+)` +\| (.+?) +\|$/.exec(line);
    if (match) rows.set(match[1]!, { folder: match[2]!, uses: match[3]! });
  }
  return rows;
}

/** The @muster packages a manifest depends on at run time (not dev dependencies). */
function musterDependencies(folder: string): string[] {
  const manifest = JSON.parse(
    readFileSync(path.join(repositoryRoot, folder, 'package.json'), 'utf8'),
  );
  return Object.keys(manifest.dependencies ?? {})
    .filter((name) => name.startsWith('@muster/'))
    .map((name) => name.slice('@muster/'.length))
    .sort();
}

describe('package layers', () => {
  const table = layerTable();

  it('lists every published library package of packages/ and apps/', () => {
    const listed = new Set([...table.values()].map((row) => row.folder));
    const outsideLayers = new Set([
      'packages/scripted-model',
      'packages/test-utils',
      'packages/clients-conformance',
    ]);
    const folders = ['packages', 'apps'].flatMap((group) =>
      readdirSync(path.join(repositoryRoot, group))
        .map((name) => `${group}/${name}`)
        .filter((folder) => existsSync(path.join(repositoryRoot, folder, 'package.json'))),
    );
    const missing = folders.filter((folder) => !listed.has(folder) && !outsideLayers.has(folder));
    expect(missing, 'add a row to the table in AGENTS.md for each').toEqual([]);
  });

  it('each package uses only the muster packages its row names', () => {
    const problems: string[] = [];
    for (const [name, row] of table) {
      if (row.uses.includes('everything above')) continue;
      const allowed = new Set(
        row.uses.split(',').map((part) => part.replace(/\(.*\)|`/g, '').trim()),
      );
      for (const dependency of musterDependencies(row.folder)) {
        if (!allowed.has(dependency))
          problems.push(`${name} depends on @muster/${dependency}, which its row does not list`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('reads the table (a table the regex missed would make the checks above pass vacuously)', () => {
    expect(table.get('tools')?.uses).toContain('query');
    expect(table.size).toBeGreaterThanOrEqual(11);
  });
});
