// The messages between the lead and its PTY host (`pty-host.ts`), sent over the Node IPC
// channel. The host is a separate process so that the lead never holds a PTY master: node-pty
// 1.1.0 opens masters without FD_CLOEXEC, and every later child of the process that holds them
// inherits them (R23).

/** Lead → host. */
export type PtyHostRequest =
  | {
      type: 'spawn';
      id: number;
      file: string;
      args: string[];
      cwd: string;
      environment: Record<string, string>;
      columns: number;
      rows: number;
    }
  | { type: 'write'; id: number; data: string }
  | { type: 'resize'; id: number; columns: number; rows: number };

/** Host → lead. */
export type PtyHostEvent =
  /** node-pty loaded: the host is ready for requests. */
  | { type: 'host-ready' }
  /** node-pty could not be loaded: the host exits after sending this. */
  | { type: 'host-failed'; message: string }
  | { type: 'spawned'; id: number; pid: number }
  | { type: 'spawn-failed'; id: number; message: string }
  | { type: 'data'; id: number; data: string }
  /** `signal` is the number node-pty reports (0 when the process exited by itself). */
  | { type: 'exit'; id: number; exitCode: number; signal: number };

/** Whether `value` looks like a host event (the channel carries only what the host sends). */
export function isPtyHostEvent(value: unknown): value is PtyHostEvent {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { type?: unknown }).type === 'string'
  );
}
