// The committed generated clients are exactly what `pnpm clients` produces from schemas/v1
// and schemas/v2.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repositoryRoot, runProcess } from './support/clients.js';

// python/muster_client/generated holds v1 and, in its v2/ folder, v2.
const generatedFolders = ['python/muster_client/generated', 'go/musterwire', 'go/musterwirev2'];

/** Every file under a folder (relative paths), leaving out Python's byte-code caches. */
async function listFiles(folder: string, prefix = ''): Promise<string[]> {
  const entries = await readdir(path.join(folder, prefix), { withFileTypes: true });
  const nested = await Promise.all(
    entries
      .filter((entry) => entry.name !== '__pycache__')
      .map((entry) =>
        entry.isDirectory()
          ? listFiles(folder, path.join(prefix, entry.name))
          : Promise.resolve([path.join(prefix, entry.name)]),
      ),
  );
  return nested.flat().sort();
}

let output: string;

beforeAll(async () => {
  output = await mkdtemp(path.join(tmpdir(), 'muster-clients-generated-'));
  await runProcess('node', ['scripts/generate-clients.mjs', '--output', output], {
    cwd: repositoryRoot,
  });
});

afterAll(async () => {
  await rm(output, { recursive: true, force: true });
});

describe('generated clients', () => {
  it.each(generatedFolders)(
    'clients/%s matches the generator output file for file',
    async (folder) => {
      const committed = path.join(repositoryRoot, 'clients', folder);
      const fresh = path.join(output, folder);
      const files = await listFiles(fresh);
      expect(await listFiles(committed)).toEqual(files);
      for (const file of files) {
        const [expected, actual] = await Promise.all([
          readFile(path.join(fresh, file), 'utf8'),
          readFile(path.join(committed, file), 'utf8'),
        ]);
        expect(actual, `clients/${folder}/${file} differs: run \`pnpm clients\``).toBe(expected);
      }
    },
  );

  it.each([
    ['v1', 'python/muster_client/generated', 'go/musterwire'],
    ['v2', 'python/muster_client/generated/v2', 'go/musterwirev2'],
  ])(
    '%s: name each top-level type exactly as its schema and never collapse the message union',
    async (folder, pythonFolder, goFolder) => {
      const python = await readFile(path.join(output, pythonFolder, 'wire_types.py'), 'utf8');
      const go = await readFile(path.join(output, goFolder, 'wire_types.go'), 'utf8');
      const index = JSON.parse(
        await readFile(path.join(repositoryRoot, 'schemas', folder, 'index.json'), 'utf8'),
      );
      for (const type of index.types as Array<{ name: string; kind: string }>) {
        if (type.kind === 'message-union') {
          expect(python).not.toContain(`class ${type.name}`);
          expect(go).not.toMatch(new RegExp(`^type ${type.name} `, 'm'));
        } else if (type.kind === 'enum') {
          expect(python).toContain(`class ${type.name}(Enum):`);
          expect(go).toMatch(new RegExp(`^type ${type.name} string$`, 'm'));
        } else if (type.name === 'Inbox') {
          expect(go).toMatch(/^type Inbox \[\]InboxMessage$/m);
          expect(python).toContain('def inbox_from_dict(s: Any) -> List[InboxMessage]:');
        } else {
          expect(python).toContain(`class ${type.name}:`);
          expect(go).toMatch(new RegExp(`^type ${type.name} struct \\{$`, 'm'));
        }
      }
      // Shared definitions come out once, under their own names.
      expect(go.match(/^type TeamMember struct/gm)).toHaveLength(1);
      expect(go).not.toMatch(/^type (MemberElement|InboxElement)\b/m);
    },
  );
});
