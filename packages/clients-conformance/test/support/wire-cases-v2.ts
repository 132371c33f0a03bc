// Which generated v2 type every schemas/examples/v2 example and every Claude Code 2.1.330
// reference file should parse as.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { claudeCode2_1_330ReferenceDirectory } from '@muster/test-utils';
import { repositoryRoot } from './clients.js';
import type { WireCase } from './wire-cases.js';

/** One entry of schemas/v2/index.json. */
export interface IndexEntryV2 {
  name: string;
  kind: string;
  messageType?: string;
  toolName?: string;
}

/** The types schemas/v2/index.json lists. */
export function indexTypesV2(): IndexEntryV2[] {
  const file = path.join(repositoryRoot, 'schemas/v2/index.json');
  return (JSON.parse(readFileSync(file, 'utf8')) as { types: IndexEntryV2[] }).types;
}

function filesIn(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const full = path.join(folder, name);
    return statSync(full).isDirectory() ? filesIn(full) : [full];
  });
}

/** Every valid example under `schemas/examples/v2/{Type}/*.json`. */
export function exampleCasesV2(): WireCase[] {
  const examples = path.join(repositoryRoot, 'schemas/examples/v2');
  return readdirSync(examples)
    .sort()
    .flatMap((type) =>
      readdirSync(path.join(examples, type))
        .filter((name) => name.endsWith('.json'))
        .sort()
        .map((name) => ({
          type,
          file: path.join(examples, type, name),
          origin: 'example' as const,
        })),
    );
}

/**
 * Every state file and protocol entry of the 2.1.330 reference, typed by where it lives, and
 * every protocol payload inside an entry's text (written to `scratch`).
 */
export function referenceCasesV2(scratch: string): WireCase[] {
  const reference = claudeCode2_1_330ReferenceDirectory();
  const cases: WireCase[] = [];
  const addPayload = (entry: { text: string }, source: string, position: number) => {
    if (!entry.text.startsWith('{')) return;
    const file = path.join(scratch, `${path.basename(source, '.json')}-${position}.payload.json`);
    writeFileSync(file, entry.text);
    cases.push({ type: 'ProtocolMessage', file, origin: 'reference-payload' });
  };
  for (const file of filesIn(reference)
    .filter((name) => name.endsWith('.json'))
    .sort()) {
    const relative = path.relative(reference, file);
    const value = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    if (/(^|\/)teams\/[^/]+\/config\.json$/.test(relative)) {
      cases.push({ type: 'TeamConfig', file, origin: 'reference' });
    } else if (/(^|\/)teams\/[^/]+\/inboxes\/[^/]+\.json$/.test(relative)) {
      cases.push({ type: 'Inbox', file, origin: 'reference' });
      (value as Array<{ text: string }>).forEach((entry, position) =>
        addPayload(entry, file, position),
      );
    } else if (/(^|\/)tasks\/[^/]+\/\d+\.json$/.test(relative)) {
      cases.push({ type: 'Task', file, origin: 'reference' });
    } else if (relative === 'protocol/signature-example.json') {
      const entryFile = path.join(scratch, 'signature-example.entry.json');
      writeFileSync(entryFile, JSON.stringify((value as { entry: unknown }).entry));
      cases.push({ type: 'InboxMessage', file: entryFile, origin: 'reference' });
    } else if (relative.startsWith('protocol/')) {
      cases.push({ type: 'InboxMessage', file, origin: 'reference' });
      addPayload(value as { text: string }, file, 0);
    }
  }
  return cases;
}
