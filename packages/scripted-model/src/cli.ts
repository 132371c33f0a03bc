#!/usr/bin/env node
// `muster-scripted-model`: a scripted TEST DOUBLE of the Anthropic Messages API (see command-line.ts).
import { runCommandLine } from './command-line.js';

const code = await runCommandLine(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});
process.exit(code);
