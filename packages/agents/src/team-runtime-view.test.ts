// How a person looks at a teammate, per backend, on real members: a real PTY (node-pty) whose
// screen the pty backend keeps, a real tmux pane on a private test server, an in-process
// member, and a backend that offers nothing.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import {
  createInProcessBackend,
  createPtyBackend,
  createTmuxBackend,
  type Backend,
  type MemberHandle,
  type MemberSpec,
} from '@muster/backends';
import { makeTempDirectory } from '@muster/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { memberView } from './team-runtime-view.js';
import { until } from './team-runtime-test-support.js';

const backends: Backend[] = [];
afterEach(async () => {
  await Promise.allSettled(backends.splice(0).map((backend) => backend.close()));
});

async function shellSpec(agentName: string, script: string): Promise<MemberSpec> {
  const root = await makeTempDirectory('muster-view-');
  await mkdir(join(root, 'teams', 'crew'), { recursive: true });
  return {
    root,
    teamName: 'crew',
    agentName,
    agentId: `${agentName}@crew`,
    cwd: root,
    command: { file: 'sh', args: ['-c', script] },
    readiness: 'external',
  };
}

describe('memberView', () => {
  it('a PTY member: its current screen as text, and the same screen with its cursor', async () => {
    const backend = createPtyBackend({ environment: { PATH: process.env.PATH } });
    backends.push(backend);
    const handle = await backend.spawn(
      await shellSpec('bob', "printf 'bob is testing\\r\\nstep 2 of 3\\r\\n'; exec sleep 1000"),
    );
    const view = memberView(handle);
    expect(view.kind).toBe('screen');
    if (view.kind !== 'screen') return;
    const text = await until('bob to print', async () => {
      const read = await view.read();
      return read.includes('step 2 of 3') ? read : undefined;
    });
    expect(text.split('\n').slice(0, 2)).toEqual(['bob is testing', 'step 2 of 3']);
    const snapshot = await view.snapshot();
    expect(snapshot.cursor.row).toBe(2);
    expect(view.logFile).toMatch(/bob\.log$/);
  });

  it('a tmux member: the attach command of its pane on the private server', async () => {
    const socketName = `muster-test-${randomBytes(4).toString('hex')}`;
    const backend = createTmuxBackend({ socketName, environment: { PATH: process.env.PATH } });
    backends.push(backend);
    const handle = await backend.spawn(await shellSpec('carol', 'exec sleep 1000'));
    const view = memberView(handle);
    expect(view).toEqual({
      kind: 'attach',
      command: `tmux -L ${socketName} attach -t ${handle.describe().paneId}`,
      paneId: expect.stringMatching(/^%\d+$/),
    });
    // The pane it names is the member's, on that server.
    const panes = execFileSync('tmux', ['-L', socketName, 'list-panes', '-a', '-F', '#{pane_id}'], {
      encoding: 'utf8',
    });
    expect(panes.split('\n')).toContain(view.kind === 'attach' ? view.paneId : '');
  });

  it('an in-process member: its transcript is in the agent events', async () => {
    const backend = createInProcessBackend({ processReaper: false });
    backends.push(backend);
    const spec = await shellSpec('alice', '');
    const handle = await backend.spawn({
      ...spec,
      command: undefined,
      readiness: 'connect-back',
      run: async (context) => {
        context.ready();
        await new Promise((resolve) => context.signal.addEventListener('abort', resolve));
      },
    });
    expect(memberView(handle)).toEqual({ kind: 'transcript' });
  });

  it('a backend that offers neither says so', () => {
    const handle = {
      spec: { agentName: 'dave' },
      backend: 'iterm2',
      describe: () => ({ backend: 'iterm2', logFile: '/tmp/dave.log' }),
    } as unknown as MemberHandle;
    const view = memberView(handle);
    expect(view.kind).toBe('unavailable');
    expect(view.kind === 'unavailable' ? view.reason : '').toMatch(
      /no screen and no attach command for dave; its output is in \/tmp\/dave\.log/,
    );
  });
});
