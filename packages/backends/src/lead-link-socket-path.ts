// Where the lead link's socket lives. `<teamFolder>/.lead.sock` when it fits in sun_path
// (107 bytes on Linux); otherwise a private folder under the temp folder, with a pointer file
// `lead-link.json` in the team folder so a person (or `muster doctor`) can find it.
import { createHash } from 'node:crypto';
import { mkdirSync, chmodSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** Longest Unix socket path Linux accepts (sun_path is 108 bytes including the final NUL). */
export const MAXIMUM_SOCKET_PATH_BYTES = 107;

/** Name of the pointer file written into the team folder when the socket lives elsewhere. */
export const LEAD_LINK_POINTER_FILE = 'lead-link.json';

/** Where the socket goes and whether a pointer file must be written. */
export interface LeadSocketLocation {
  socketPath: string;
  /** Set when the socket is not in the team folder: the pointer file to write. */
  pointerFile?: string;
}

/** Chooses the socket path for a team folder (pure; creates nothing). */
export function chooseLeadSocketPath(teamFolder: string): LeadSocketLocation {
  const preferred = path.join(teamFolder, '.lead.sock');
  if (Buffer.byteLength(preferred) <= MAXIMUM_SOCKET_PATH_BYTES) return { socketPath: preferred };
  const hash = createHash('sha256').update(path.resolve(teamFolder)).digest('hex').slice(0, 16);
  return {
    socketPath: path.join(tmpdir(), `muster-${hash}`, 'lead.sock'),
    pointerFile: path.join(teamFolder, LEAD_LINK_POINTER_FILE),
  };
}

/** Creates the private folder of a fallback socket (mode 0700) and writes the pointer file. */
export function prepareLeadSocketLocation(location: LeadSocketLocation): void {
  if (location.pointerFile === undefined) return;
  const folder = path.dirname(location.socketPath);
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  chmodSync(folder, 0o700);
  writeFileSync(
    location.pointerFile,
    `${JSON.stringify({ socketPath: location.socketPath, pid: process.pid }, null, 2)}\n`,
    { mode: 0o600 },
  );
}

/** Removes the pointer file and the fallback folder (never throws). */
export function releaseLeadSocketLocation(location: LeadSocketLocation): void {
  if (location.pointerFile === undefined) return;
  rmSync(location.pointerFile, { force: true });
  rmSync(path.dirname(location.socketPath), { recursive: true, force: true });
}
