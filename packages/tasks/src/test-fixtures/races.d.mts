// Types for races.mjs (used from the TypeScript tests).
export interface ClaimRaceFigures {
  processes: number;
  tasks: number;
  claims: number;
  distinctClaimed: number;
  doubleClaims: number;
  unclaimed: number;
  ownerMismatches: number;
  problems: number;
  perProcess: number[];
  wallMs: number;
}
export interface CreateRaceFigures {
  processes: number;
  requested: number;
  files: number;
  distinctIds: number;
  distinctSubjects: number;
  highestId: number;
  wallMs: number;
}
export function seedTasks(root: string, team: string, count: number): Promise<void>;
export function runClaimRace(options: {
  root: string;
  team: string;
  processes: number;
  taskCount: number;
  mode?: 'plain' | 'busy';
}): Promise<ClaimRaceFigures>;
export function runCreateRace(options: {
  root: string;
  team: string;
  processes: number;
  total: number;
}): Promise<CreateRaceFigures>;
export interface MixedRaceFigures {
  processes: number;
  operations: number;
  timeouts: number;
  longestWaitMs: number;
  wallMs: number;
}
export function runMixedRace(options: {
  root: string;
  team: string;
  claimers: number;
  creators: number;
  count: number;
  deadlineMs: number;
}): Promise<MixedRaceFigures>;
