import { lstat, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import {
  LAYOUT_NAMES,
  parseMessageContent,
  teamDialect,
  type InboxMessage,
  type Task,
  type TeamConfig,
} from '@muster/protocol';
import { listEntries, type Entry, type ScannedInbox, type ScannedTeam } from './scanned-team.js';
import type { Finding } from './doctor-types.js';
import { inspectLockDirectory } from './inspect-lock.js';
import { readJsonFile } from './read-json-file.js';
import type { FileSchemaName, FileValidator, SchemaDialect } from './file-validator.js';

/** Options of {@link scanRoot}. */
export interface ScanOptions {
  validator: FileValidator;
  /** A lock older than this is stale (file-lock's default when omitted). */
  staleMs?: number;
  /** A temporary file older than this is a leftover of a crashed writer. */
  temporaryFileAgeMs?: number;
  now?: number;
}

/** Everything {@link scanRoot} found. */
export interface ScanResult {
  teams: ScannedTeam[];
  findings: Finding[];
  filesChecked: number;
}

const QUARANTINED = /\.corrupt-/;
// muster's temporary files, and Claude Code 2.1.330's `<name>.json.tmp.<8 hex>`.
const TEMPORARY = /\.tmp$|\.tmp-|\.tmp\.[0-9a-f]{8}$|^\..*\.[0-9a-f]{6,}\.tmp/;
/** A session team Claude Code 2.1.330 renamed at `/exit` just before removing it. */
const DELETED_TEAM = /\.deleted-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TASK_FILE = /^([1-9][0-9]*)\.json$/;

class Scanner {
  readonly findings: Finding[] = [];
  filesChecked = 0;

  constructor(
    readonly root: string,
    readonly options: ScanOptions,
  ) {}

  relative(file: string): string {
    return path.relative(this.root, file) || '.';
  }

  add(finding: Finding): void {
    this.findings.push(finding);
  }

  /** Locks, quarantined copies and temporary files, wherever they are. Returns true if handled. */
  async checkCommonEntry(entry: Entry): Promise<boolean> {
    if (entry.isDirectory && entry.name.endsWith(LAYOUT_NAMES.lockSuffix)) {
      this.filesChecked += 1;
      await this.checkLock(entry.file);
      return true;
    }
    if (entry.name.endsWith('.lock.owner') || entry.name.endsWith('.lock.steal')) return true;
    if (QUARANTINED.test(entry.name)) {
      this.filesChecked += 1;
      const original = entry.name.replace(/\.corrupt-.*$/, '');
      this.add({
        severity: 'problem',
        code: 'QUARANTINED_FILE',
        file: entry.file,
        message: `is a quarantined copy of ${original}: it did not parse, so muster moved it aside instead of overwriting it. Look inside, copy back anything still needed, then delete it.`,
      });
      return true;
    }
    if (!entry.isDirectory && TEMPORARY.test(entry.name)) {
      this.filesChecked += 1;
      const ageMs = (this.options.now ?? Date.now()) - (await stat(entry.file)).mtimeMs;
      if (ageMs > (this.options.temporaryFileAgeMs ?? 60_000)) {
        this.add({
          severity: 'warning',
          code: 'LEFTOVER_TEMPORARY_FILE',
          file: entry.file,
          message: `is a temporary file left by a writer that stopped before renaming it into place (${Math.round(ageMs / 1000)} s old). It is safe to delete.`,
        });
      }
      return true;
    }
    return false;
  }

  async checkLock(lockDirectory: string): Promise<void> {
    const verdict = await inspectLockDirectory(
      lockDirectory,
      this.options.staleMs,
      this.options.now,
    );
    if (verdict.state !== 'stale') return;
    this.add({
      severity: 'problem',
      code: 'STALE_LOCK',
      file: lockDirectory,
      message: `is a lock left behind by a process that is gone: ${verdict.reason}. Writers of ${path.basename(lockDirectory, LAYOUT_NAMES.lockSuffix)} wait on it (Claude Code's give up at once); run muster doctor --fix to remove it.`,
      repair: {
        kind: 'remove-stale-lock',
        lockedFile: lockDirectory.slice(0, -LAYOUT_NAMES.lockSuffix.length),
      },
    });
  }

  /**
   * A folder's entries; undefined when it is missing. A folder that cannot be listed
   * (permissions, a link loop, not a folder) is reported as UNREADABLE, never thrown.
   */
  async list(directory: string): Promise<Entry[] | undefined> {
    try {
      return await listEntries(directory);
    } catch (error) {
      this.unreadable(directory, error);
      return undefined;
    }
  }

  /** Reports a file or folder the doctor could not read, with what to do about it. */
  unreadable(file: string, error: unknown): void {
    const code = (error as NodeJS.ErrnoException).code;
    const advice =
      code === 'EACCES' || code === 'EPERM'
        ? 'Check its permissions, or run muster doctor as the user who owns it.'
        : code === 'ELOOP'
          ? 'It is a symbolic link that leads back to itself; replace it with the folder it should be.'
          : 'Check that it is the folder muster expects.';
    this.add({
      severity: 'problem',
      code: 'UNREADABLE',
      file,
      message: `cannot be read (${(error as Error).message}), so nothing in it was checked. ${advice}`,
    });
  }

  unknown(entry: Entry, where: string): void {
    this.add({
      severity: 'warning',
      code: 'UNKNOWN_FILE',
      file: entry.file,
      message: `is not a file muster or Claude Code keeps in ${where}. Leave it if you put it there; otherwise it can go.`,
    });
  }

  /** Reads, parses and validates one JSON file; returns the value when it is valid. */
  async checkJsonFile(
    file: string,
    schema: FileSchemaName | undefined,
    what: string,
    options: {
      rewrittenInPlace?: boolean;
      /** The schemas to use, or how to tell them from the parsed value (a team config). */
      dialect?: SchemaDialect | ((value: unknown) => SchemaDialect);
    } = {},
  ) {
    this.filesChecked += 1;
    const reading = await readJsonFile(file);
    if (reading.outcome === 'unreadable') {
      this.add({
        severity: 'problem',
        code: 'UNREADABLE',
        file,
        message: `cannot be read (${reading.reason}). Check its permissions.`,
      });
      return undefined;
    }
    if (reading.outcome === 'unparseable' && options.rewrittenInPlace) {
      // Claude Code truncates and rewrites inboxes in place: a file that stayed empty or cut
      // short over every re-read is a copy frozen mid-write (or a writer still at it).
      this.add({
        severity: 'warning',
        code: 'DOES_NOT_PARSE',
        file,
        message: `is empty or cut short (${reading.reason}; read ${reading.attempts} times over about 1.5 s). Claude Code rewrites inboxes in place, so this is what a write in progress looks like: if Claude Code is running, run muster doctor again. If nothing writes it any more, repair it by hand or delete it; muster's writers move it aside rather than overwrite it.`,
      });
      return undefined;
    }
    if (reading.outcome === 'unparseable') {
      this.add({
        severity: 'problem',
        code: 'DOES_NOT_PARSE',
        file,
        message: `is not valid JSON (${reading.reason}). Repair it by hand, or delete it if ${what} is not needed; muster's writers refuse to overwrite it and move it aside instead.`,
      });
      return undefined;
    }
    if (schema === undefined) return reading.value;
    const dialect =
      typeof options.dialect === 'function'
        ? options.dialect(reading.value)
        : (options.dialect ?? 'v1');
    const problems = this.options.validator.validate(schema, reading.value, dialect);
    if (problems.length > 0) {
      this.add({
        severity: 'problem',
        code: 'DOES_NOT_VALIDATE',
        file,
        message: `does not match the ${schema} format: ${problems.join('; ')}. Correct those fields by hand (see schemas/${dialect}/${schema}.schema.json).`,
      });
      return undefined;
    }
    return reading.value;
  }

  async scanInboxes(team: ScannedTeam, directory: string): Promise<void> {
    for (const entry of (await this.list(directory)) ?? []) {
      if (await this.checkCommonEntry(entry)) continue;
      if (entry.isDirectory && entry.name.endsWith('.json')) {
        this.filesChecked += 1;
        this.add({
          severity: 'problem',
          code: 'NOT_A_FILE',
          file: entry.file,
          message: `is a folder where ${entry.name.slice(0, -5)}'s inbox file should be: every message sent to that agent fails, Claude Code's included. Move the folder away (look inside first); the next message creates the inbox.`,
        });
        continue;
      }
      if (!entry.isDirectory && entry.name.endsWith('.archive.jsonl')) {
        await this.checkArchive(entry.file);
        continue;
      }
      if (!entry.isDirectory && entry.name.endsWith('.json')) {
        const value = await this.checkJsonFile(entry.file, 'Inbox', 'the inbox', {
          rewrittenInPlace: true,
        });
        const inbox: ScannedInbox = { agentFileName: entry.name.slice(0, -5), file: entry.file };
        if (value !== undefined) {
          inbox.messages = value as InboxMessage[];
          this.checkProtocolMessages(entry.file, inbox.messages);
        }
        team.inboxes.push(inbox);
        continue;
      }
      this.unknown(entry, 'an inboxes folder');
    }
  }

  checkProtocolMessages(file: string, messages: readonly InboxMessage[]): void {
    messages.forEach((message, index) => {
      const content = parseMessageContent(message.text);
      if (content.kind === 'text' && content.protocolProblem !== undefined) {
        this.add({
          severity: 'warning',
          code: 'MALFORMED_PROTOCOL_MESSAGE',
          file,
          message: `message ${index} (from ${message.from}) looks like a ${content.protocolProblem.split(':')[0]} message but does not match it (${content.protocolProblem}); readers treat it as plain text.`,
        });
      }
    });
  }

  async checkArchive(file: string): Promise<void> {
    this.filesChecked += 1;
    const lines = (await readFile(file, 'utf8')).split('\n');
    const broken: string[] = [];
    lines.forEach((line, index) => {
      if (line.trim() === '') return;
      try {
        const problems = this.options.validator.validate('InboxMessage', JSON.parse(line));
        if (problems.length > 0) broken.push(`line ${index + 1}: ${problems.join('; ')}`);
      } catch (error) {
        broken.push(`line ${index + 1}: ${(error as Error).message}`);
      }
    });
    if (broken.length > 0) {
      this.add({
        severity: 'problem',
        code: 'DOES_NOT_VALIDATE',
        file,
        message: `has archived messages that are not InboxMessage records (${broken.slice(0, 3).join('; ')}). Fix or remove those lines.`,
      });
    }
  }

  async scanTeamDirectory(team: ScannedTeam): Promise<void> {
    const entries = await this.list(team.teamDirectory);
    if (entries === undefined) return;
    team.hasTeamDirectory = true;
    if (!entries.some((entry) => entry.name === LAYOUT_NAMES.teamConfig && !entry.isDirectory)) {
      this.add({
        severity: 'problem',
        code: 'MISSING_TEAM_CONFIG',
        file: team.teamDirectory,
        message: `has no ${LAYOUT_NAMES.teamConfig}, so it is not a usable team. Restore the config or delete the folder (and tasks/${team.name}).`,
      });
    }
    for (const entry of entries) {
      if (await this.checkCommonEntry(entry)) continue;
      if (entry.name === LAYOUT_NAMES.teamConfig && !entry.isDirectory) {
        const value = await this.checkJsonFile(entry.file, 'TeamConfig', 'the team', {
          dialect: teamDialect,
        });
        if (value !== undefined) team.config = value as TeamConfig;
      } else if (entry.name === LAYOUT_NAMES.inboxes && entry.isDirectory) {
        await this.scanInboxes(team, entry.file);
      } else if (entry.name === LAYOUT_NAMES.sidecar && entry.isDirectory) {
        await this.scanSidecar(team, entry.file);
      } else {
        this.unknown(entry, 'a team folder');
      }
    }
  }

  async scanSidecar(team: ScannedTeam, directory: string): Promise<void> {
    for (const entry of (await this.list(directory)) ?? []) {
      if (await this.checkCommonEntry(entry)) continue;
      if (!entry.isDirectory && entry.name.endsWith('.json')) {
        const value = await this.checkJsonFile(entry.file, undefined, "muster's record");
        if (value !== undefined) team.sidecarFiles.set(entry.name, value);
      } else if (entry.isDirectory && entry.name === 'mailbox') {
        await this.scanMailboxQueues(entry.file);
      }
      // Other sidecar files belong to muster packages that validate them on read.
    }
  }

  /** `.muster/mailbox/{agent}/rejected/*`: queued messages that never reached the inbox. */
  async scanMailboxQueues(directory: string): Promise<void> {
    for (const agent of (await this.list(directory)) ?? []) {
      if (!agent.isDirectory) continue;
      const rejected = (await this.list(path.join(agent.file, 'rejected'))) ?? [];
      for (const entry of rejected) {
        this.filesChecked += 1;
        this.add({
          severity: 'warning',
          code: 'UNDELIVERED_MESSAGE',
          file: entry.file,
          message: `is a message queued for ${agent.name}'s inbox that did not parse, so it was never delivered (its sender got an error). Resend it if it is still needed, then delete this file.`,
        });
      }
    }
  }

  async scanTasksDirectory(team: ScannedTeam): Promise<void> {
    const entries = await this.list(team.tasksDirectory);
    if (entries === undefined) return;
    team.hasTasksDirectory = true;
    for (const entry of entries) {
      if (await this.checkCommonEntry(entry)) continue;
      if (entry.name === LAYOUT_NAMES.tasksLock && !entry.isDirectory) continue;
      if (entry.name === LAYOUT_NAMES.highWatermark && !entry.isDirectory) {
        await this.checkHighWatermark(entry.file);
        continue;
      }
      const match = TASK_FILE.exec(entry.name);
      if (match && !entry.isDirectory) {
        const value = await this.checkJsonFile(entry.file, 'Task', 'the task', {
          dialect: team.config ? teamDialect(team.config) : 'v1',
        });
        if (value === undefined) {
          team.unusableTaskIds.add(match[1]!);
          continue;
        }
        const task = value as Task;
        if (task.id !== match[1]) {
          this.add({
            severity: 'problem',
            code: 'TASK_ID_MISMATCH',
            file: entry.file,
            message: `holds task id "${task.id}" but its file name says ${match[1]}. Readers look tasks up by file name; rename the file or correct the id.`,
          });
          team.unusableTaskIds.add(match[1]!);
          continue;
        }
        team.tasks.push({ task, file: entry.file });
        continue;
      }
      this.unknown(entry, 'a tasks folder');
    }
  }

  /**
   * `teams/<team>.deleted-<uuid>`: Claude Code renames a session team so at `/exit` and
   * removes it a moment later. Seen for longer, the removal stopped half-way.
   */
  async checkDeletedTeam(entry: Entry): Promise<void> {
    this.filesChecked += 1;
    const ageMs = (this.options.now ?? Date.now()) - (await stat(entry.file)).mtimeMs;
    if (ageMs <= (this.options.temporaryFileAgeMs ?? 60_000)) return;
    this.add({
      severity: 'warning',
      code: 'LEFTOVER_DELETED_TEAM',
      file: entry.file,
      message: `is a session team Claude Code was removing when its session ended (${Math.round(ageMs / 1000)} s ago); the removal stopped half-way. Nothing reads it: delete it.`,
    });
  }

  async checkHighWatermark(file: string): Promise<void> {
    this.filesChecked += 1;
    const text = await readFile(file, 'utf8');
    if (!/^\s*[0-9]+\s*$/.test(text)) {
      this.add({
        severity: 'problem',
        code: 'BAD_HIGH_WATERMARK',
        file,
        message: `should hold one whole number (the highest task id ever deleted) but holds ${JSON.stringify(text.slice(0, 40))}. Replace it with the highest task id used so far, or 0.`,
      });
    }
  }
}

/**
 * Checks that a folder the scan starts from is usable: missing is fine (nothing to check),
 * but a file, a dangling link or a folder that cannot be opened is reported as UNREADABLE.
 * Returns whether the folder can be scanned.
 */
async function checkRootFolder(scanner: Scanner, directory: string): Promise<boolean> {
  let isLink = false;
  try {
    isLink = (await lstat(directory)).isSymbolicLink();
    const stats = await stat(directory);
    if (stats.isDirectory()) return true;
    scanner.add({
      severity: 'problem',
      code: 'UNREADABLE',
      file: directory,
      message: `is not a folder, so no team under it could be checked. Point --root (or MUSTER_HOME) at muster's folder, the one holding teams/ and tasks/.`,
    });
    return false;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && !isLink) return false;
    if (code === 'ENOENT') {
      scanner.add({
        severity: 'problem',
        code: 'UNREADABLE',
        file: directory,
        message: `is a symbolic link to something that does not exist, so nothing under it could be checked. Point the link at muster's folder, or --root at the real folder.`,
      });
      return false;
    }
    scanner.unreadable(directory, error);
    return false;
  }
}

/**
 * Reads every file under `{root}/teams` and `{root}/tasks` and checks it on its own: parses,
 * validates against its format, quarantined copies, stale locks, stray files. Never writes.
 */
export async function scanRoot(root: string, options: ScanOptions): Promise<ScanResult> {
  const scanner = new Scanner(root, options);
  const teamsDirectory = path.join(root, LAYOUT_NAMES.teams);
  const tasksRoot = path.join(root, LAYOUT_NAMES.tasks);
  const names = new Set<string>();
  if (!(await checkRootFolder(scanner, root))) {
    return { teams: [], findings: scanner.findings, filesChecked: scanner.filesChecked };
  }
  for (const directory of [teamsDirectory, tasksRoot]) {
    if (!(await checkRootFolder(scanner, directory))) continue;
    for (const entry of (await scanner.list(directory)) ?? []) {
      if (await scanner.checkCommonEntry(entry)) continue;
      if (entry.isDirectory && DELETED_TEAM.test(entry.name)) {
        await scanner.checkDeletedTeam(entry);
        continue;
      }
      if (entry.isDirectory && !entry.name.startsWith('.')) names.add(entry.name);
      else if (!entry.name.startsWith('.')) scanner.unknown(entry, scanner.relative(directory));
    }
  }
  const teams: ScannedTeam[] = [];
  for (const name of [...names].sort()) {
    const team: ScannedTeam = {
      name,
      teamDirectory: path.join(teamsDirectory, name),
      hasTeamDirectory: false,
      configPath: path.join(teamsDirectory, name, LAYOUT_NAMES.teamConfig),
      inboxes: [],
      tasksDirectory: path.join(tasksRoot, name),
      hasTasksDirectory: false,
      tasks: [],
      unusableTaskIds: new Set(),
      sidecarFiles: new Map(),
    };
    try {
      await scanner.scanTeamDirectory(team);
    } catch (error) {
      scanner.unreadable(team.teamDirectory, error);
    }
    try {
      await scanner.scanTasksDirectory(team);
    } catch (error) {
      scanner.unreadable(team.tasksDirectory, error);
    }
    teams.push(team);
  }
  return { teams, findings: scanner.findings, filesChecked: scanner.filesChecked };
}
export type { ScannedInbox, ScannedTask, ScannedTeam } from './scanned-team.js';
