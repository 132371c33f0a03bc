#!/usr/bin/env node
/** Command line entry of `muster-scripted-model` (a scripted TEST DOUBLE of the Anthropic Messages API). */
console.error('muster-scripted-model: not implemented yet');
process.exitCode = 2;
