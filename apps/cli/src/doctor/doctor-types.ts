/** What kind of problem the doctor found (stable codes for scripts). */
export type FindingCode =
  | 'DOES_NOT_PARSE'
  | 'DOES_NOT_VALIDATE'
  | 'QUARANTINED_FILE'
  | 'STALE_LOCK'
  | 'MISSING_TEAM_CONFIG'
  | 'TASKS_WITHOUT_TEAM'
  | 'TASK_ID_MISMATCH'
  | 'BAD_HIGH_WATERMARK'
  | 'INBOX_OF_NON_MEMBER'
  | 'TASK_OWNER_GONE'
  | 'MISSING_DEPENDENCY'
  | 'CYCLIC_DEPENDENCY'
  | 'ONE_SIDED_DEPENDENCY'
  | 'MEMBER_PROCESS_GONE'
  | 'MALFORMED_PROTOCOL_MESSAGE'
  | 'UNDELIVERED_MESSAGE'
  | 'LEFTOVER_TEMPORARY_FILE'
  | 'UNKNOWN_FILE'
  | 'UNREADABLE'
  | 'NOT_A_FILE'
  | 'DUPLICATE_MEMBER_NAME'
  | 'MALFORMED_ENTRY'
  | 'LEAD_SIGNATURE_FROM_NON_LEAD'
  | 'DUPLICATE_MESSAGE_ID'
  | 'SESSION_ENDED'
  | 'KEPT_TASK_LIST'
  | 'LEFTOVER_DELETED_TEAM'
  // Where to look at a running member (member-look-findings.ts).
  | 'TMUX_MEMBER_ATTACH'
  | 'STALE_TMUX_RECORD'
  | 'PTY_MEMBER_LOG';

/**
 * A problem makes `muster doctor` exit 1; a warning is reported but does not; a note says
 * what a normal but surprising state is (a session's kept task list), and is not a fault.
 */
export type FindingSeverity = 'problem' | 'warning' | 'note';

/** A repair `--fix` may make for a finding. */
export type FindingRepair =
  | { kind: 'remove-stale-lock'; lockedFile: string }
  | { kind: 'unassign-task'; team: string; taskId: string; owner: string };

/** One thing wrong with one file. */
export interface Finding {
  severity: FindingSeverity;
  code: FindingCode;
  /** Absolute path of the file or folder. */
  file: string;
  /** What is wrong and what to do about it. */
  message: string;
  /** Present when `--fix` can repair it safely. */
  repair?: FindingRepair;
}

/** What `--fix` did for one finding. */
export interface RepairOutcome {
  file: string;
  code: FindingCode;
  /** Whether the repair was made. */
  repaired: boolean;
  /** What was done, or why it was not. */
  message: string;
}

/** The whole result of a doctor run. */
export interface DoctorReport {
  root: string;
  /** How files were validated (JSON Schema from schemas/v1 via Ajv, or the zod schemas). */
  validator: string;
  teams: string[];
  filesChecked: number;
  findings: Finding[];
  repairs: RepairOutcome[];
}
