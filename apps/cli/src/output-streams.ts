/** Where a command writes: stdout for results, stderr for errors and progress. */
export interface OutputStreams {
  stdout: { write(text: string): unknown; isTTY?: boolean; columns?: number; rows?: number };
  stderr: { write(text: string): unknown; isTTY?: boolean };
}
