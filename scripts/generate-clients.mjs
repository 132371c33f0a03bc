// `pnpm clients`: generates the Python and Go wire types from `schemas/v1/` and `schemas/v2/`
// (and nothing else) with quicktype: v1 into `clients/python/muster_client/generated/wire_types.py`
// and `clients/go/musterwire/wire_types.go`, v2 (Claude Code 2.1.330's dialect) into
// `clients/python/muster_client/generated/v2/wire_types.py` and
// `clients/go/musterwirev2/wire_types.go`. The output is committed; `npm test` regenerates
// it and fails when it differs from what is committed. Everything below is done once per
// schema folder.
//
// Every wire type listed in `schemas/v1/index.json` becomes its own top-level type, named
// exactly as its schema's title (InboxMessage, TeamConfig, ShutdownRequest, …). The
// message union (`ProtocolMessage`) is left out on purpose: generated as one type it would
// collapse every message into one class of optional fields. The hand-written clients
// dispatch on `type` to the per-message types instead.
//
// Each published schema is self-contained (it inlines its dependencies under `$defs`).
// Handed to quicktype as they are, the same type would come out once per file that inlines
// it (TeamMember, MemberElement, …). So before generating, the schemas are linked in
// memory: a `$defs` entry that is itself a published type becomes a reference to that
// type's own schema file, and the remaining shared definitions move into one in-memory
// document. Nothing is fetched from the network and nothing is written to `schemas/`.
// One more adjustment: free-form objects with documented keys become maps (see
// isFreeFormObject), so no user data in them is lost.
//
// Both clients also carry a verbatim copy of `schemas/v1/` (`generated/schemas/` in Python,
// `musterwire/schemas/` embedded in Go) so they can validate against the published schemas
// without the repository at hand.
//
// Every generated class and struct keeps the keys its schema does not declare, so a client
// that reads and rewrites a file loses nothing (scripts/keep-undeclared-fields.mjs).
//
// Go: optional slices and maps become pointers (see pointOptionalCollections). Go output
// goes through `gofmt` (from the Go toolchain), so Go must be installed.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { keepUndeclaredFieldsGo, keepUndeclaredFieldsPython } from './keep-undeclared-fields.mjs';

const repositoryRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// `--output <folder>` writes the same tree into another folder instead of `clients/` (the
// conformance tests compare the two to catch drift).
const outputOption = process.argv.indexOf('--output');
const clientsDirectory =
  outputOption === -1
    ? path.join(repositoryRoot, 'clients')
    : path.resolve(process.argv[outputOption + 1] ?? fail('--output needs a folder'));

/** Each schema folder and where its generated types go. */
const targets = [
  {
    folder: 'v1',
    pythonFolder: 'python/muster_client/generated',
    goPackage: 'musterwire',
  },
  {
    folder: 'v2',
    pythonFolder: 'python/muster_client/generated/v2',
    goPackage: 'musterwirev2',
  },
];

// quicktype-core is quicktype's own engine; it is resolved through the pinned `quicktype`
// package so both always have the same version.
const requireFromQuicktype = createRequire(
  createRequire(import.meta.url).resolve('quicktype/package.json'),
);
const quicktypeCore = requireFromQuicktype('quicktype-core');
const quicktypeVersion = requireFromQuicktype('quicktype/package.json').version;

const sharedDefinitionsFile = 'shared-definitions.schema.json';
const definitionPrefix = '#/$defs/';

function fail(message) {
  console.error(`[clients] ${message}`);
  process.exit(1);
}

function readJson(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    fail(
      `cannot read ${path.relative(repositoryRoot, file)}: ${error.message}. Run \`pnpm schemas\` first.`,
    );
  }
}

/** Deep equality of two JSON values (key order ignored). */
function jsonEqual(left, right) {
  if (left === right) return true;
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null) {
    return false;
  }
  if (Array.isArray(left) !== Array.isArray(right)) return false;
  const leftKeys = Object.keys(left);
  const rightKeys = Object.keys(right);
  if (leftKeys.length !== rightKeys.length) return false;
  return leftKeys.every((key) => Object.hasOwn(right, key) && jsonEqual(left[key], right[key]));
}

/**
 * A free-form object with documented keys (`Task.metadata`): every declared property is
 * optional and any other key is allowed. quicktype would turn it into a class of the
 * documented keys and drop everything else a user put there, so it is generated as a map
 * (Python `Dict[str, Any]`, Go `map[string]interface{}`) that keeps every key.
 */
function isFreeFormObject(schema) {
  return (
    schema.type === 'object' &&
    schema.properties !== undefined &&
    (schema.required === undefined || schema.required.length === 0) &&
    schema.additionalProperties !== undefined &&
    schema.additionalProperties !== false
  );
}

/**
 * Links the self-contained schemas: returns a map from `$id` to the schema quicktype sees,
 * and the list of top-level types (name and `$id`) in file-name order.
 */
function linkSchemas(schemasDirectory) {
  const index = readJson(path.join(schemasDirectory, 'index.json'));
  const baseUrl = index.baseUrl;
  const published = index.types
    .filter((type) => type.kind !== 'message-union')
    .sort((left, right) => (left.file < right.file ? -1 : left.file > right.file ? 1 : 0));
  const publishedNames = new Set(published.map((type) => type.name));
  const sharedDefinitions = {};

  const rewrite = (node) => {
    if (Array.isArray(node)) return node.map(rewrite);
    if (node === null || typeof node !== 'object') return node;
    const result = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === '$defs') continue;
      if (key === 'properties' && isFreeFormObject(node)) continue;
      if (key === '$ref' && typeof value === 'string') {
        if (!value.startsWith(definitionPrefix)) {
          fail(`unexpected $ref ${value}: only local "#/$defs/<Name>" references are supported.`);
        }
        const name = value.slice(definitionPrefix.length);
        result.$ref = publishedNames.has(name)
          ? `${name}.schema.json`
          : `${sharedDefinitionsFile}${definitionPrefix}${name}`;
        continue;
      }
      result[key] = rewrite(value);
    }
    return result;
  };

  const byId = new Map();
  for (const type of published) {
    const file = path.join(schemasDirectory, type.file);
    const schema = readJson(file);
    if (schema.title !== type.name) {
      fail(`${type.file} has title ${JSON.stringify(schema.title)}, expected ${type.name}.`);
    }
    for (const [name, definition] of Object.entries(schema.$defs ?? {})) {
      if (publishedNames.has(name)) {
        const own = readJson(path.join(schemasDirectory, `${name}.schema.json`));
        const { $schema: _s, $id: _i, title: _t, $defs: _d, ...ownBody } = own;
        if (!jsonEqual(rewrite(ownBody), rewrite(definition))) {
          fail(`${type.file} inlines a ${name} that differs from ${name}.schema.json.`);
        }
        continue;
      }
      const linked = { title: name, ...rewrite(definition) };
      if (sharedDefinitions[name] !== undefined && !jsonEqual(sharedDefinitions[name], linked)) {
        fail(`two schemas define ${name} differently (one is in ${type.file}).`);
      }
      sharedDefinitions[name] = linked;
    }
    byId.set(schema.$id, rewrite(schema));
  }
  const sortedDefinitions = Object.fromEntries(
    Object.keys(sharedDefinitions)
      .sort()
      .map((name) => [name, sharedDefinitions[name]]),
  );
  byId.set(`${baseUrl}${sharedDefinitionsFile}`, {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: `${baseUrl}${sharedDefinitionsFile}`,
    $defs: sortedDefinitions,
  });
  return { byId, published };
}

/** Runs quicktype over every published type, each its own top level. */
async function generate(language, rendererOptions, linked, folder) {
  const { JSONSchemaInput, JSONSchemaStore, InputData, quicktype } = quicktypeCore;
  class InMemoryStore extends JSONSchemaStore {
    async fetch(address) {
      const schema = linked.byId.get(address.replace(/#.*$/, ''));
      if (schema === undefined) {
        fail(`quicktype asked for ${address}, which is not in schemas/${folder}.`);
      }
      return schema;
    }
  }
  const input = new JSONSchemaInput(new InMemoryStore());
  for (const type of linked.published) {
    await input.addSource({ name: type.name, uris: [`${type.$id}#`] });
  }
  const inputData = new InputData();
  inputData.addInput(input);
  const result = await quicktype({ inputData, lang: language, rendererOptions });
  return `${result.lines.join('\n').trimEnd()}\n`;
}

/**
 * encoding/json's `omitempty` treats an empty slice or map as absent, so a Go struct would
 * drop an optional `[]` or `{}` that was present. Optional slices and maps become pointers
 * instead (nil = absent), like every other optional field quicktype generates.
 */
function pointOptionalCollections(source) {
  return source.replace(
    /^(\t\w+\s+)((?:\[\]|map\[)[^`\n]*?)(\s+`json:"[^"]+,omitempty"`)$/gm,
    (_match, name, type, tag) => `${name}*${type}${tag}`,
  );
}

function gofmt(source) {
  const result = spawnSync('gofmt', [], { input: source, encoding: 'utf8' });
  if (result.error || result.status !== 0) {
    fail(
      `gofmt failed (${result.error?.message ?? result.stderr.trim()}). ` +
        'Install Go (Debian: apt-get install golang) so gofmt is on PATH, then run `pnpm clients` again.',
    );
  }
  return result.stdout;
}

function writeOutput(file, content) {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
  console.log(`[clients] wrote ${path.relative(repositoryRoot, file)}`);
}

/** Generates one schema folder's Python and Go types and copies its schemas beside them. */
async function generateTarget({ folder, pythonFolder, goPackage }) {
  const schemasDirectory = path.join(repositoryRoot, 'schemas', folder);
  const pythonOutput = path.join(clientsDirectory, pythonFolder, 'wire_types.py');
  const goOutput = path.join(clientsDirectory, 'go', goPackage, 'wire_types.go');
  const header = [
    `Code generated by scripts/generate-clients.mjs from schemas/${folder} with quicktype ${quicktypeVersion}. DO NOT EDIT.`,
    'Run `pnpm clients` to regenerate it after the schemas change.',
  ];
  const linked = linkSchemas(schemasDirectory);

  const python = await generate('python', { 'python-version': '3.7' }, linked, folder);
  writeOutput(
    pythonOutput,
    `${header.map((line) => `# ${line}\n`).join('')}# flake8: noqa\n\n${keepUndeclaredFieldsPython(python)}`,
  );

  const go = await generate('go', { package: goPackage, 'omit-empty': 'true' }, linked, folder);
  writeOutput(
    goOutput,
    gofmt(
      keepUndeclaredFieldsGo(
        pointOptionalCollections(gofmt(`${header.map((line) => `// ${line}\n`).join('')}\n${go}`)),
      ),
    ),
  );

  writeOutput(
    path.join(path.dirname(pythonOutput), '__init__.py'),
    `${header.map((line) => `# ${line}\n`).join('')}"""Wire types generated from schemas/${folder} (see wire_types.py) and a copy of the schemas."""\n`,
  );
  writeOutput(
    path.join(path.dirname(goOutput), 'schemas.go'),
    gofmt(
      `${header.map((line) => `// ${line}\n`).join('')}\npackage ${goPackage}\n\n` +
        'import "embed"\n\n' +
        `// Schemas is a verbatim copy of schemas/${folder}: every {TypeName}.schema.json and index.json.\n` +
        '//\n//go:embed schemas/*.json\nvar Schemas embed.FS\n',
    ),
  );
  copySchemas(schemasDirectory, path.join(path.dirname(pythonOutput), 'schemas'));
  copySchemas(schemasDirectory, path.join(path.dirname(goOutput), 'schemas'));
}

/** Replaces `target` with a verbatim copy of the published schema files. */
function copySchemas(schemasDirectory, target) {
  rmSync(target, { recursive: true, force: true });
  mkdirSync(target, { recursive: true });
  const files = readdirSync(schemasDirectory)
    .filter((name) => name.endsWith('.json'))
    .sort();
  for (const name of files) {
    writeFileSync(path.join(target, name), readFileSync(path.join(schemasDirectory, name)));
  }
  console.log(
    `[clients] copied ${files.length} schema files to ${path.relative(repositoryRoot, target)}`,
  );
}

for (const target of targets) await generateTarget(target);
