#!/usr/bin/env node
// The `muster` executable. Keep this file tiny: it must not import the packages, ink or
// react, so that `muster --help` and `muster --version` start fast.
import { runCli } from './program.js';

const exitCode = await runCli(process.argv.slice(2));
process.exitCode = exitCode;
