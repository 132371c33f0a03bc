#!/usr/bin/env node
// The `muster` executable. Keep this file tiny: it must not import the packages, ink or
// react, so that `muster --help` and `muster --version` start fast.
import { runCli } from './program.js';

// A reader that stops early (`muster tasks list | head`) closes the pipe: that is the
// reader's choice, not an error. Stop writing to that stream instead of crashing on EPIPE;
// the command still finishes and exits with its own code.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    stream.write = () => true;
  });
}

const exitCode = await runCli(process.argv.slice(2));
process.exitCode = exitCode;
