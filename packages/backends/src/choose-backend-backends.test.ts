// chooseBackend (R15) with the package's real backends: tmux with no tmux program, the iTerm2
// backend against the it2 STAND-IN with its Python API "disabled", pty with node-pty failing
// to load, and the in-process backend. The choice is announced step by step; it is never a
// quiet in-process member, and an explicit --backend iterm2 is an error with the fix.
import { MusterError } from '@muster/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import type { Backend } from './backend-types.js';
import { chooseBackend } from './choose-backend.js';
import { createInProcessBackend } from './in-process-backend.js';
import { createITermBackend } from './iterm-backend.js';
import { makeStandInLead } from './iterm-test-support.js';
import { createPtyBackend } from './pty-backend.js';
import { createTmuxBackend } from './tmux-backend.js';

const backends: Backend[] = [];
afterEach(async () => {
  await Promise.allSettled(backends.splice(0).map((backend) => backend.close()));
});

async function realBackends() {
  const lead = await makeStandInLead();
  lead.setState((state) => (state.apiDown = true));
  const environment = { ...lead.environment };
  delete environment.TMUX;
  const made = [
    createTmuxBackend({ tmuxPath: '/nonexistent/tmux', environment }),
    createITermBackend({ environment }),
    createPtyBackend({
      loadPty: () => Promise.reject(new Error('node-pty.node: cannot open shared object file')),
    }),
    createInProcessBackend(),
  ];
  backends.push(...made);
  return { lead, environment, made };
}

describe('chooseBackend with the real backends (R15)', () => {
  it('iTerm2 verification failing: every step down is announced and in-process is chosen visibly', async () => {
    const { lead, environment, made } = await realBackends();
    const choice = await chooseBackend({ requested: 'auto', environment, backends: made });
    expect(choice.backendType).toBe('in-process');
    const text = choice.notices.join('\n');
    expect(text).toMatch(/^tmux is unavailable: /m);
    expect(text).toMatch(
      /^iterm2 is unavailable: it2 session list failed: the iTerm2 Python API did not answer/m,
    );
    expect(text).toContain('Enable Python API');
    expect(text).toMatch(/^pty is unavailable: .*node-pty/m);
    expect(text).toContain(
      'Using the in-process backend instead of tmux, iterm2, pty; members are recorded with backendType "in-process".',
    );
    expect(lead.calls()).toContainEqual(['session', 'list']);
  });

  it('--backend iterm2 with the API off is an error saying how to enable it, not a fallback', async () => {
    const { environment, made } = await realBackends();
    await expect(
      chooseBackend({ requested: 'iterm2', environment, backends: made }),
    ).rejects.toSatisfy(
      (error) =>
        MusterError.hasCode(error, 'UNAVAILABLE') &&
        error.message.startsWith(
          'The iterm2 backend was requested but cannot run here: it2 session list failed',
        ) &&
        error.message.includes('Enable Python API'),
    );
  });

  it('with the API answering, auto takes iTerm2 (tmux missing) and says why tmux was passed over', async () => {
    const { lead, environment, made } = await realBackends();
    lead.setState((state) => (state.apiDown = false));
    const choice = await chooseBackend({ requested: 'auto', environment, backends: made });
    expect(choice.backendType).toBe('iterm2');
    expect(choice.notices[0]).toMatch(/^tmux is unavailable: /);
    expect(choice.notices).toContain(
      'Using the iterm2 backend instead of tmux; members are recorded with backendType "iterm2".',
    );
  });
});
