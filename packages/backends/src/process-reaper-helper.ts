// The process reaper helper: a small program (built to `dist/process-reaper-helper.js`) that a
// lead starts once, detached into its own session, with a pipe from the lead as its stdin. It
// does nothing until that pipe closes — the lead closed it (`reaper.close()`) or the lead died,
// SIGKILL included, which closes every descriptor the lead held — then it ends every process
// marked with the lead run's `MUSTER_LEAD_RUN=<id>`, prints one JSON report line and exits.
// A second witness, the parent pid changing, covers a pipe that some other process still holds.
import { readProcessIdentity } from './process-control.js';
import type { ProcessIdentity } from './process-control.js';
import { sweepMarkedProcesses } from './process-reaper-sweep.js';

/** What the lead passes as the one argument (JSON). */
interface HelperConfiguration {
  variable: string;
  value: string;
  leadPid: number;
  leadStartTime: string;
  graceMs: number;
  settleMs: number;
}

/** How often the helper checks that its parent (the lead) is still the same process. */
const PARENT_CHECK_INTERVAL_MS = 250;
/** How long the helper waits for its report line to be written before it exits anyway. */
const REPORT_FLUSH_MS = 500;

function fail(message: string, code: number): never {
  process.stderr.write(`process-reaper-helper: ${message}\n`);
  process.exit(code);
}

function readConfiguration(text: string | undefined): HelperConfiguration {
  if (text === undefined) {
    fail(
      'this program is started by startProcessReaper() of @muster/backends with one JSON argument; do not run it by hand',
      2,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    fail(`its argument is not JSON: ${text.slice(0, 200)}`, 2);
  }
  const configuration = value as Partial<HelperConfiguration> | null;
  const valid =
    typeof configuration === 'object' &&
    configuration !== null &&
    typeof configuration.variable === 'string' &&
    /^[A-Z_][A-Z0-9_]*$/.test(configuration.variable) &&
    typeof configuration.value === 'string' &&
    /^[A-Za-z0-9-]{8,}$/.test(configuration.value) &&
    Number.isInteger(configuration.leadPid) &&
    typeof configuration.leadStartTime === 'string' &&
    Number.isFinite(configuration.graceMs) &&
    Number.isFinite(configuration.settleMs);
  if (!valid) fail(`its argument is not a valid configuration: ${text.slice(0, 200)}`, 2);
  return configuration as HelperConfiguration;
}

function main(): void {
  const configuration = readConfiguration(process.argv[2]);
  if (readProcessIdentity(process.pid) === undefined) {
    fail(`no /proc on ${process.platform}: marked processes cannot be found here`, 3);
  }
  const lead: ProcessIdentity = {
    pid: configuration.leadPid,
    startTime: configuration.leadStartTime,
    pgid: 0,
    sid: 0,
  };
  let sweeping = false;
  const sweepAndExit = (why: string, exitCode: number): void => {
    if (sweeping) return;
    sweeping = true;
    void sweepMarkedProcesses({
      variable: configuration.variable,
      value: configuration.value,
      // A lead that closed the pipe on purpose is still alive: it is never signalled.
      exclude: [lead],
      graceMs: configuration.graceMs,
      settleMs: configuration.settleMs,
    })
      .then(
        (report) => ({ why, ...report }),
        (error: unknown) => ({ why, error: String(error) }),
      )
      .then((report) => {
        const timer = setTimeout(() => process.exit(exitCode), REPORT_FLUSH_MS);
        process.stdout.write(`${JSON.stringify(report)}\n`, () => {
          clearTimeout(timer);
          process.exit(exitCode);
        });
      });
  };
  // The lead's ends of stdout and stderr go away with the lead: a late write must not crash us.
  process.stdout.on('error', () => undefined);
  process.stderr.on('error', () => undefined);
  process.stdin.on('data', () => undefined);
  process.stdin.on('end', () => sweepAndExit('the lead closed the pipe', 0));
  process.stdin.on('close', () => sweepAndExit('the lead closed the pipe', 0));
  process.stdin.on('error', () => sweepAndExit('the pipe from the lead failed', 0));
  setInterval(() => {
    if (process.ppid !== configuration.leadPid) sweepAndExit('the lead process is gone', 0);
  }, PARENT_CHECK_INTERVAL_MS);
  // Ctrl-C and a closed terminal are for the lead; a SIGTERM (system shutdown) sweeps first.
  process.on('SIGINT', () => undefined);
  process.on('SIGHUP', () => undefined);
  process.on('SIGTERM', () => sweepAndExit('the reaper was sent SIGTERM', 0));
  process.on('uncaughtException', (error) => {
    process.stderr.write(`process-reaper-helper: ${String(error)}; sweeping before exit\n`);
    sweepAndExit(`the reaper failed: ${String(error)}`, 1);
  });
  if (process.ppid !== configuration.leadPid) {
    sweepAndExit('the lead process was gone before the reaper started', 0);
    return;
  }
  process.stdout.write('ready\n');
}

main();
