import { acquireFileLock } from '@muster/file-lock';
import { MusterError } from '@muster/protocol';
import { createTaskStore } from '@muster/tasks';
import {
  findMemberRuntime,
  isMemberProcessAlive,
  MEMBER_RUNTIME_FILE_NAME,
  MemberRuntimeFileSchema,
  type MemberRuntime,
} from '@muster/teams';
import path from 'node:path';
import { checkTeam, type MemberProcessLookup } from './check-team.js';
import type { DoctorReport, Finding, RepairOutcome } from './doctor-types.js';
import { memberLookFindings } from './member-look-findings.js';
import { scanRoot, type ScannedTeam } from './scan-root.js';
import type { FileValidator } from './file-validator.js';

/** Options of {@link runDoctor}. */
export interface DoctorOptions {
  root: string;
  validator: FileValidator;
  /** Repair what is safe to repair, then check again. */
  fix?: boolean;
  /** A lock older than this is stale (file-lock's default when omitted). */
  staleMs?: number;
}

function sidecarFindings(team: ScannedTeam): {
  findings: Finding[];
  lookup: MemberProcessLookup;
  runtimes?: Record<string, MemberRuntime>;
} {
  const raw = team.sidecarFiles.get(MEMBER_RUNTIME_FILE_NAME);
  if (raw === undefined) return { findings: [], lookup: () => 'unknown' };
  const parsed = MemberRuntimeFileSchema.safeParse(raw);
  const file = path.join(team.teamDirectory, '.muster', MEMBER_RUNTIME_FILE_NAME);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .slice(0, 3)
      .map((issue) => `${issue.path.join('.') || '(top level)'}: ${issue.message}`)
      .join('; ');
    return {
      findings: [
        {
          severity: 'problem',
          code: 'DOES_NOT_VALIDATE',
          file,
          message: `does not match muster's member runtime format: ${problems}. Delete it; running members record themselves again.`,
        },
      ],
      lookup: () => 'unknown',
    };
  }
  const runtimes = (raw as typeof parsed.data).members;
  return {
    findings: [],
    runtimes,
    lookup: (_team, member) => {
      const runtime = findMemberRuntime(runtimes, member);
      if (runtime === undefined) return 'unknown';
      return isMemberProcessAlive(runtime) ? 'alive' : 'gone';
    },
  };
}

async function check(options: DoctorOptions) {
  const scan = await scanRoot(options.root, {
    validator: options.validator,
    ...(options.staleMs === undefined ? {} : { staleMs: options.staleMs }),
  });
  const findings = [...scan.findings];
  for (const team of scan.teams) {
    const sidecar = sidecarFindings(team);
    findings.push(...sidecar.findings, ...checkTeam(team, sidecar.lookup, options.validator));
    if (sidecar.runtimes) findings.push(...(await memberLookFindings(team, sidecar.runtimes)));
  }
  return { ...scan, findings };
}

async function removeStaleLock(lockedFile: string, staleMs: number | undefined): Promise<string> {
  // Taking the lock through @muster/file-lock removes an abandoned lock exactly as a waiting
  // writer would (re-checked under its steal guard); releasing it leaves nothing behind.
  const lock = await acquireFileLock(lockedFile, {
    deadlineMs: 1_500,
    ...(staleMs === undefined ? {} : { staleMs }),
  });
  await lock.release();
  return 'removed the stale lock';
}

async function applyRepairs(options: DoctorOptions, findings: readonly Finding[]) {
  const outcomes: RepairOutcome[] = [];
  const unassigned = new Set<string>();
  for (const finding of findings) {
    const repair = finding.repair;
    if (repair === undefined) continue;
    try {
      if (repair.kind === 'remove-stale-lock') {
        const message = await removeStaleLock(repair.lockedFile, options.staleMs);
        outcomes.push({ file: finding.file, code: finding.code, repaired: true, message });
        continue;
      }
      const key = `${repair.team}\u0000${repair.owner}`;
      if (unassigned.has(key)) continue;
      unassigned.add(key);
      const store = createTaskStore({ root: options.root, team: repair.team });
      const result = await store.unassignAgentTasks(repair.owner, { reason: 'terminated' });
      const released = result.unassignedTasks.map((task) => `#${task.id} (${task.subject})`);
      outcomes.push({
        file: finding.file,
        code: finding.code,
        repaired: released.length > 0,
        message:
          released.length > 0
            ? `unassigned ${released.join(', ')} from ${repair.owner}; ${released.length === 1 ? 'it is' : 'they are'} pending again`
            : `nothing to unassign: ${repair.owner} no longer owns unfinished tasks`,
      });
    } catch (error) {
      const held = MusterError.hasCode(error, 'LOCK_TIMEOUT');
      outcomes.push({
        file: finding.file,
        code: finding.code,
        repaired: false,
        message: held
          ? 'left it alone: a live process holds the lock again'
          : `could not repair it: ${(error as Error).message}`,
      });
    }
  }
  return outcomes;
}

/**
 * Checks every file under a root (`teams/` and `tasks/`): each file on its own, then each
 * team's files against each other. With `fix`, repairs what is safe to repair — stale locks,
 * tasks owned by members who are gone — and reports what remains afterwards.
 */
export async function runDoctor(options: DoctorOptions): Promise<DoctorReport> {
  let result = await check(options);
  let repairs: RepairOutcome[] = [];
  if (options.fix && result.findings.some((finding) => finding.repair !== undefined)) {
    repairs = await applyRepairs(options, result.findings);
    result = await check(options);
  }
  return {
    root: options.root,
    validator: options.validator.description,
    teams: result.teams.map((team) => team.name),
    filesChecked: result.filesChecked,
    findings: result.findings,
    repairs,
  };
}
