// Test support for the iTerm2 backend: a folder with the it2 STAND-IN (test-fixtures/
// it2-stand-in.mjs, which is NOT iTerm2) on the PATH as `it2`, its state file and call log.
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempDirectory } from '@muster/test-utils';

const packageFolder = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The stand-in `it2`, the member fixture and `node`, for iTerm2 backend tests. */
export const standInPaths = {
  it2: path.join(packageFolder, 'test-fixtures', 'it2-stand-in.mjs'),
  member: path.join(packageFolder, 'test-fixtures', 'member.mjs'),
};

/** One stand-in session in the state file. */
export interface StandInSession {
  id: string;
  pgid?: number;
  splitFrom?: string | null;
  direction?: string;
}

/** The stand-in's state file. */
export interface StandInState {
  sessions: StandInSession[];
  apiDown?: boolean;
  failSplits?: number;
  failRuns?: number;
  dropRuns?: number;
}

/** A lead "inside iTerm2" with the stand-in on its PATH. */
export interface StandInLead {
  root: string;
  teamName: string;
  leadSessionId: string;
  environment: Record<string, string>;
  state(): StandInState;
  setState(change: (state: StandInState) => void): void;
  /** Every it2 call so far, as argv arrays. */
  calls(): string[][];
  /** SIGKILLs every process group the stand-in started (test cleanup). */
  killAll(): void;
}

/** Makes the folder, the `it2` link, the state (the lead's own session only) and a team folder. */
export async function makeStandInLead(): Promise<StandInLead> {
  const folder = await makeTempDirectory('muster-iterm-');
  const bin = path.join(folder, 'bin');
  mkdirSync(bin);
  symlinkSync(standInPaths.it2, path.join(bin, 'it2'));
  const stateFile = path.join(folder, 'it2-state.json');
  const logFile = path.join(folder, 'it2-calls.log');
  const leadSessionId = 'LEAD0000-0000-4000-8000-000000000000';
  writeFileSync(stateFile, JSON.stringify({ sessions: [{ id: leadSessionId }] }));
  writeFileSync(logFile, '');
  const root = path.join(folder, 'root');
  const teamName = 'iterm-team';
  mkdirSync(path.join(root, 'teams', teamName), { recursive: true });
  const readState = () => JSON.parse(readFileSync(stateFile, 'utf8')) as StandInState;
  return {
    root,
    teamName,
    leadSessionId,
    environment: {
      ...(process.env as Record<string, string>),
      PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`,
      TERM_PROGRAM: 'iTerm.app',
      ITERM_SESSION_ID: `w0t0p0:${leadSessionId}`,
      IT2_STAND_IN_STATE: stateFile,
      IT2_STAND_IN_LOG: logFile,
    },
    state: readState,
    setState(change) {
      const state = readState();
      change(state);
      writeFileSync(stateFile, JSON.stringify(state));
    },
    calls: () =>
      readFileSync(logFile, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => (JSON.parse(line) as { argv: string[] }).argv),
    killAll() {
      for (const session of readState().sessions) {
        if (session.pgid === undefined) continue;
        try {
          process.kill(-session.pgid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    },
  };
}
