// TEST DOUBLES for the member monitor's tests (not exported from the package): two small
// backends that implement the `MemberHandle` contract with real processes and real promises,
// so the monitor is tested before (and independently of) the real in-process and process
// backends. Their processes are plain `node` children in their own process group.
import { spawn } from 'node:child_process';
import { readProcessStat } from '@muster/file-lock';
import type {
  InProcessMemberContext,
  MemberExit,
  MemberHandle,
  MemberSpec,
} from './backend-types.js';

/** A real child process member: `node -e <script>`, detached into its own group. */
export function startTestProcessMember(
  spec: MemberSpec,
  options: { script?: string; reportExit?: boolean } = {},
): MemberHandle & { pid: number } {
  const child = spawn(process.execPath, ['-e', options.script ?? 'setInterval(() => {}, 1000)'], {
    cwd: spec.cwd,
    detached: true,
    stdio: 'ignore',
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error('test process member did not start');
  let resolveExit!: (exit: MemberExit) => void;
  const exited = new Promise<MemberExit>((resolve) => {
    resolveExit = resolve;
  });
  const ended = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  child.on('exit', (code, signal) => {
    // reportExit false: a member whose end the backend never saw (a pane killed from outside).
    if (options.reportExit === false) return;
    resolveExit({
      reason: signal === null ? 'exited' : 'crashed',
      code,
      signal,
      message: `test process ${pid} ended (${signal ?? `code ${code}`})`,
      at: Date.now(),
    });
  });
  const isAlive = () => {
    const stat = readProcessStat(pid);
    return stat !== undefined && stat.state !== 'Z' && stat.state !== 'X';
  };
  return {
    pid,
    spec,
    backend: 'pty',
    ready: Promise.resolve(),
    exited,
    markReady: () => {},
    isAlive,
    async kill() {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // already gone
      }
      await ended;
      return Promise.race([
        exited,
        Promise.resolve<MemberExit>({
          reason: 'killed',
          code: null,
          signal: 'SIGKILL',
          message: `test process ${pid} killed`,
          at: Date.now(),
        }),
      ]);
    },
    describe: () => ({ backend: 'pty', pid, socket: '/tmp/test-socket', notes: ['TEST DOUBLE'] }),
  };
}

/** An in-process member: `spec.run(context)` in this process; ends when `run` settles or on kill. */
export function startTestInProcessMember(spec: MemberSpec): MemberHandle {
  const lifecycle = new AbortController();
  let alive = true;
  let resolveExit!: (exit: MemberExit) => void;
  const exited = new Promise<MemberExit>((resolve) => {
    resolveExit = resolve;
  });
  const finish = (exit: Omit<MemberExit, 'at'>) => {
    if (!alive) return;
    alive = false;
    resolveExit({ ...exit, at: Date.now() });
  };
  const context: InProcessMemberContext = {
    teamName: spec.teamName,
    agentName: spec.agentName,
    agentId: spec.agentId,
    cwd: spec.cwd,
    signal: lifecycle.signal,
    ready: () => {},
  };
  const run = spec.run ?? (() => new Promise<void>(() => {}));
  run(context).then(
    () => finish({ reason: 'exited', code: 0, signal: null, message: 'run settled' }),
    (error: unknown) =>
      finish({ reason: 'crashed', code: null, signal: null, message: String(error) }),
  );
  return {
    spec,
    backend: 'in-process',
    ready: Promise.resolve(),
    exited,
    markReady: () => {},
    isAlive: () => alive,
    kill() {
      lifecycle.abort();
      finish({ reason: 'killed', code: null, signal: null, message: 'killed' });
      return exited;
    },
    describe: () => ({ backend: 'in-process', notes: ['TEST DOUBLE'] }),
  };
}
