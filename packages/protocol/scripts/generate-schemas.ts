// Writes schemas/v1 and schemas/v2 from the zod schemas: `pnpm schemas` (or
// `pnpm --filter @muster/protocol run generate-schemas`). Never edit them by hand; v1 is
// frozen (its zod schemas are the v1 shapes, kept apart from the readers' schemas).
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateSchemaFiles, SCHEMA_SETS } from './schema-generation.js';

const schemasDirectory = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../schemas',
);

for (const set of SCHEMA_SETS) {
  const versionDirectory = path.join(schemasDirectory, set.folder);
  const files = generateSchemaFiles(set);
  await mkdir(versionDirectory, { recursive: true });
  // Remove files no longer generated (a renamed type must not leave its old schema behind).
  for (const existing of await readdir(versionDirectory)) {
    if (!files.has(`${set.folder}/${existing}`)) {
      await rm(path.join(versionDirectory, existing), { recursive: true, force: true });
      console.log(`removed ${set.folder}/${existing}`);
    }
  }
  for (const [relativePath, content] of files) {
    await writeFile(path.join(schemasDirectory, relativePath), content);
  }
  console.log(
    `wrote ${files.size} files to ${path.relative(process.cwd(), versionDirectory) || '.'}`,
  );
}
