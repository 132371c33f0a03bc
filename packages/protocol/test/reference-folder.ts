// Locates the Claude Code reference files the repository keeps in
// `fixtures/claude-code-2.1.45` and `fixtures/claude-code-2.1.330`, and classifies them.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  claudeCode2_1_330ReferenceDirectory,
  claudeCodeReferenceDirectory,
} from '@muster/test-utils';

/** The repository root (two levels above this package). */
export const repositoryRoot = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../..',
);

/** The repository's `schemas/` folder. */
export const schemasDirectory = path.join(repositoryRoot, 'schemas');

/** Absolute path of the reference folder (`fixtures/claude-code-2.1.45`). */
export function referenceFolder(): string {
  return claudeCodeReferenceDirectory();
}

/** Absolute path of the Claude Code 2.1.330 reference folder (`fixtures/claude-code-2.1.330`). */
export function referenceFolderV2(): string {
  return claudeCode2_1_330ReferenceDirectory();
}

/** What a reference file is, decided by where it sits. */
export type ReferenceFileKind =
  | 'team-config'
  | 'inbox'
  | 'task'
  | 'high-watermark'
  | 'tasks-lock'
  | 'inbox-entry'
  | 'tool-input-schema'
  | 'tools-offered-index'
  | 'signature-example';

/** One file of the reference folder. */
export interface ReferenceFile {
  /** Path relative to the reference folder, with `/` separators. */
  relativePath: string;
  /** Absolute path. */
  absolutePath: string;
  kind: ReferenceFileKind;
}

const classifiers: Array<[RegExp, ReferenceFileKind]> = [
  [/^[^/]+\/teams\/[^/]+\/config\.json$/, 'team-config'],
  [/^[^/]+\/teams\/[^/]+\/inboxes\/[^/]+\.json$/, 'inbox'],
  [/^[^/]+\/tasks\/[^/]+\/[1-9][0-9]*\.json$/, 'task'],
  [/^[^/]+\/tasks\/[^/]+\/\.highwatermark$/, 'high-watermark'],
  [/^[^/]+\/tasks\/[^/]+\/\.lock$/, 'tasks-lock'],
  [/^protocol\/signature-example\.json$/, 'signature-example'],
  [/^protocol\/[^/]+\.json$/, 'inbox-entry'],
  [/^tools\/[A-Za-z]+\.input_schema\.json$/, 'tool-input-schema'],
  [/^tools\/tools-offered(\.[a-z]+)?\.index\.json$/, 'tools-offered-index'],
];

/**
 * Every file of a reference folder (default: 2.1.45), classified; throws for a file it
 * cannot classify.
 */
export function listReferenceFiles(root: string = referenceFolder()): ReferenceFile[] {
  const files: ReferenceFile[] = [];
  const visit = (directory: string) => {
    for (const entry of readdirSync(directory).sort()) {
      const absolutePath = path.join(directory, entry);
      if (statSync(absolutePath).isDirectory()) {
        visit(absolutePath);
        continue;
      }
      const relativePath = path.relative(root, absolutePath).split(path.sep).join('/');
      const match = classifiers.find(([pattern]) => pattern.test(relativePath));
      if (match === undefined) {
        throw new Error(
          `Reference file ${relativePath} is of no known kind; teach test/reference-folder.ts what it is.`,
        );
      }
      files.push({ relativePath, absolutePath, kind: match[1] });
    }
  };
  visit(root);
  return files;
}

/** One inbox entry found in the reference folder, with where it came from. */
export interface ReferenceInboxEntry {
  source: string;
  entry: { from: string; text: string; color?: string; summary?: string } & Record<string, unknown>;
}

/**
 * Every inbox entry in a reference folder (default: 2.1.45): each inbox's entries and each
 * protocol/*.json.
 */
export function listReferenceInboxEntries(root: string = referenceFolder()): ReferenceInboxEntry[] {
  const entries: ReferenceInboxEntry[] = [];
  for (const file of listReferenceFiles(root)) {
    const text = readFileSync(file.absolutePath, 'utf8');
    if (file.kind === 'inbox') {
      (JSON.parse(text) as ReferenceInboxEntry['entry'][]).forEach((entry, index) =>
        entries.push({ source: `${file.relativePath}[${index}]`, entry }),
      );
    } else if (file.kind === 'inbox-entry') {
      entries.push({ source: file.relativePath, entry: JSON.parse(text) });
    }
  }
  return entries;
}
