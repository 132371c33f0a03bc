// Run by scripts/check-installable.mjs in an empty folder where only the packed
// @muster/backends and what it depends on were installed with npm: imports it by name and runs
// a member in every backend that can run here.
//   MUSTER_CHECK_PTY=available    (default) node-pty was built: the pty backend must say so and
//                                 run a member that connects back through the packed dist/.
//   MUSTER_CHECK_PTY=unavailable  installed without a C toolchain: the pty backend must say it
//                                 is unavailable, why, and what to install; spawn must refuse.
// In both cases an in-process member and a tmux member (private server on a random socket,
// ended before this script exits) must run, become ready and end when killed.
import { mkdirSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import {
  BackendError,
  createInProcessBackend,
  createPtyBackend,
  createTmuxBackend,
} from '@muster/backends';

const expectation = process.env.MUSTER_CHECK_PTY ?? 'available';
if (expectation !== 'available' && expectation !== 'unavailable') {
  throw new Error(`MUSTER_CHECK_PTY is "${expectation}"; use "available" or "unavailable".`);
}

const root = path.resolve('check-root');
const teamName = 'installed';
mkdirSync(path.join(root, 'teams', teamName), { recursive: true });
// A process member: connects back through the installed package, says ready, stays until killed.
const memberScript = path.resolve('installed-member.mjs');
writeFileSync(
  memberScript,
  [
    "import { connectToLead } from '@muster/backends';",
    'const link = await connectToLead();',
    'await link.ready();',
    'setInterval(() => {}, 1000);',
    '',
  ].join('\n'),
);

function specFor(agentName, extra) {
  return {
    root,
    teamName,
    agentName,
    agentId: `${agentName}@${teamName}`,
    cwd: process.cwd(),
    readyTimeoutMs: 20_000,
    ...extra,
  };
}

async function runMember(backend, spec) {
  const member = await backend.spawn(spec);
  await member.ready;
  const exit = await member.kill({ graceful: true, deadlineMs: 3_000 });
  if (exit.reason !== 'killed') {
    throw new Error(`${backend.name} member ended as ${JSON.stringify(exit)}, not killed`);
  }
  return member.describe();
}

const report = [];

const pty = createPtyBackend();
const ptyAvailability = await pty.availability();
try {
  if (expectation === 'available') {
    if (!ptyAvailability.available) {
      throw new Error(`pty backend unavailable with node-pty built: ${ptyAvailability.reason}`);
    }
    const view = await runMember(
      pty,
      specFor('pty-member', { command: { file: process.execPath, args: [memberScript] } }),
    );
    report.push(`pty available and ran a member (log ${path.relative(root, view.logFile)})`);
  } else {
    if (ptyAvailability.available) {
      throw new Error('pty backend says available although node-pty was not built');
    }
    if (
      !/node-pty/.test(ptyAvailability.reason) ||
      !/make|g\+\+|python/.test(ptyAvailability.fix)
    ) {
      throw new Error(`unavailability not explained: ${JSON.stringify(ptyAvailability)}`);
    }
    let refusal;
    try {
      await pty.spawn(
        specFor('pty-member', { command: { file: process.execPath, args: [memberScript] } }),
      );
    } catch (error) {
      refusal = error;
    }
    if (!(refusal instanceof BackendError) || refusal.code !== 'UNAVAILABLE') {
      throw new Error(`pty spawn without node-pty was not refused as UNAVAILABLE: ${refusal}`);
    }
    report.push(`pty unavailable: ${ptyAvailability.reason}; fix: ${ptyAvailability.fix}`);
  }
} finally {
  await pty.close();
}

const inProcess = createInProcessBackend();
try {
  await runMember(
    inProcess,
    specFor('in-process-member', {
      run: async (context) => {
        context.ready();
        await new Promise((resolve) => context.signal.addEventListener('abort', resolve));
      },
    }),
  );
  report.push('in-process ran a member');
} finally {
  await inProcess.close();
}

const tmux = createTmuxBackend({
  socketName: `muster-test-${randomBytes(4).toString('hex')}`,
  environment: {},
});
try {
  const tmuxAvailability = await tmux.availability();
  if (!tmuxAvailability.available) {
    throw new Error(`tmux backend unavailable: ${tmuxAvailability.reason}`);
  }
  const view = await runMember(
    tmux,
    specFor('tmux-member', { command: { file: process.execPath, args: [memberScript] } }),
  );
  report.push(`tmux ran a member (${view.attachCommand})`);
} finally {
  await tmux.close();
}

console.log(`used @muster/backends: ${report.join('; ')}`);
