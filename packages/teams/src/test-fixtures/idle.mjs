// Child process that stands in for a teammate's process: prints "ready" and waits.
process.stdout.write('ready\n');
setInterval(() => {}, 60_000);
