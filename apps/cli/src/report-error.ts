import { MusterError } from '@muster/protocol';
import { exitCodeFor } from './cli-error.js';
import type { OutputStreams } from './output-streams.js';
import { detectTerminalStyle, paint } from './terminal-style.js';
import { escapeJsonForTerminal, escapeTerminalText } from './terminal-text.js';

/**
 * Prints an error on stderr — as text (`muster: <message>`), or with `--json` as
 * `{"error":{code,message,details}}` — and returns the exit code for it.
 */
export function reportError(
  error: unknown,
  options: {
    json: boolean;
    environment: Record<string, string | undefined>;
    streams: OutputStreams;
  },
): number {
  const known = MusterError.isInstance(error);
  const code = known ? error.code : 'UNEXPECTED';
  const message = error instanceof Error ? error.message : String(error);
  if (options.json) {
    const details = known ? error.details : {};
    options.streams.stderr.write(
      `${escapeJsonForTerminal(JSON.stringify({ error: { code, message, details: jsonSafe(details) } }, null, 2))}\n`,
    );
  } else {
    const style = detectTerminalStyle(options.streams.stderr, options.environment);
    const prefix = paint(style, 'red', known ? 'muster: error:' : 'muster: unexpected error:');
    // Messages echo arguments and file contents: never let them drive the terminal.
    options.streams.stderr.write(
      `${prefix} ${escapeTerminalText(message, { keepLineBreaks: true })}\n`,
    );
    if (!known) {
      options.streams.stderr.write(
        options.environment.MUSTER_DEBUG
          ? `${(error as Error)?.stack ?? ''}\n`
          : 'Run again with MUSTER_DEBUG=1 for the stack trace, and please report it.\n',
      );
    }
  }
  return exitCodeFor(error);
}

function jsonSafe(value: unknown): unknown {
  try {
    return JSON.parse(
      JSON.stringify(value, (_key, inner: unknown) =>
        typeof inner === 'bigint'
          ? inner.toString()
          : inner instanceof Error
            ? inner.message
            : inner,
      ),
    );
  } catch {
    return {};
  }
}
