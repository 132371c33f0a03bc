// Writes schemas/v1 from the zod schemas: `pnpm schemas` (or
// `pnpm --filter @muster/protocol run generate-schemas`). Never edit schemas/v1 by hand.
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SCHEMA_VERSION_FOLDER } from '../src/index.js';
import { generateSchemaFiles } from './schema-generation.js';

const schemasDirectory = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../schemas',
);
const versionDirectory = path.join(schemasDirectory, SCHEMA_VERSION_FOLDER);

const files = generateSchemaFiles();
await mkdir(versionDirectory, { recursive: true });
// Remove files no longer generated (a renamed type must not leave its old schema behind).
for (const existing of await readdir(versionDirectory)) {
  if (!files.has(`${SCHEMA_VERSION_FOLDER}/${existing}`)) {
    await rm(path.join(versionDirectory, existing), { recursive: true, force: true });
    console.log(`removed ${SCHEMA_VERSION_FOLDER}/${existing}`);
  }
}
for (const [relativePath, content] of files) {
  await writeFile(path.join(schemasDirectory, relativePath), content);
}
console.log(
  `wrote ${files.size} files to ${path.relative(process.cwd(), versionDirectory) || '.'}`,
);
