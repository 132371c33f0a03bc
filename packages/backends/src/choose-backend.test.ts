import { MusterError, type BackendType } from '@muster/protocol';
import { describe, expect, it } from 'vitest';
import type { Backend, BackendAvailability } from './backend-types.js';
import { AUTO_BACKEND_ORDER, chooseBackend } from './choose-backend.js';

/** A test backend: only its name and availability matter to the choice; it never spawns. */
function testBackend(
  name: BackendType,
  availability: BackendAvailability | (() => Promise<BackendAvailability>),
): Backend & { checks: number } {
  const backend = {
    name,
    checks: 0,
    availability: async () => {
      backend.checks += 1;
      return typeof availability === 'function' ? availability() : availability;
    },
    spawn: () => Promise.reject(new Error(`test backend ${name} does not spawn`)),
    close: () => Promise.resolve(),
  };
  return backend;
}

const available: BackendAvailability = { available: true };
const itermVerificationFailed: BackendAvailability = {
  available: false,
  reason: 'it2 session list failed: the iTerm2 Python API did not answer (connection refused)',
  fix: 'Enable it in iTerm2 → Settings → General → Magic → Enable Python API.',
};
const noTmux: BackendAvailability = {
  available: false,
  reason: 'tmux is not on the PATH',
  fix: 'Install tmux (apt-get install tmux, brew install tmux).',
};

describe('chooseBackend (R15)', () => {
  it('auto inside tmux takes tmux and says members split the lead window', async () => {
    const tmux = testBackend('tmux', available);
    const inProcess = testBackend('in-process', available);
    const choice = await chooseBackend({
      requested: 'auto',
      environment: { TMUX: '/tmp/tmux-0/default,123,0' },
      backends: [inProcess, tmux],
    });
    expect(choice.backend).toBe(tmux);
    expect(choice.backendType).toBe('tmux');
    expect(choice.notices.join('\n')).toMatch(/split from your window/);
    expect(inProcess.checks).toBe(0);
  });

  it('auto outside tmux with tmux on the PATH takes tmux on a private server', async () => {
    const choice = await chooseBackend({
      requested: 'auto',
      environment: {},
      backends: [testBackend('tmux', available), testBackend('iterm2', available)],
    });
    expect(choice.backendType).toBe('tmux');
    expect(choice.notices.join('\n')).toMatch(/private server/);
  });

  it('iTerm2 verification failing is announced with its reason and fix, never a quiet in-process', async () => {
    const choice = await chooseBackend({
      requested: 'auto',
      environment: { TERM_PROGRAM: 'iTerm.app', ITERM_SESSION_ID: 'w0t0p0:ABC' },
      backends: [
        testBackend('tmux', noTmux),
        testBackend('iterm2', itermVerificationFailed),
        testBackend('in-process', available),
      ],
    });
    expect(choice.backendType).toBe('in-process');
    const text = choice.notices.join('\n');
    expect(text).toContain('iterm2 is unavailable: it2 session list failed');
    expect(text).toContain('Enable Python API');
    expect(text).toContain('tmux is unavailable: tmux is not on the PATH');
    expect(text).toContain('pty is not offered');
    expect(text).toMatch(
      /Using the in-process backend instead of tmux, iterm2, pty; .*backendType "in-process"/,
    );
  });

  it('takes the first available backend in the auto order', async () => {
    expect(AUTO_BACKEND_ORDER).toEqual(['tmux', 'iterm2', 'pty', 'in-process']);
    const choice = await chooseBackend({
      requested: 'auto',
      environment: {},
      backends: [
        testBackend('in-process', available),
        testBackend('pty', { available: true, notes: ['node-pty 1.1.0 loaded'] }),
        testBackend('iterm2', itermVerificationFailed),
        testBackend('tmux', noTmux),
      ],
    });
    expect(choice.backendType).toBe('pty');
    expect(choice.notices).toContain('pty: node-pty 1.1.0 loaded');
    expect(choice.notices.some((notice) => notice.startsWith('Using the pty backend'))).toBe(true);
  });

  it('an availability check that throws or hangs counts as unavailable, with the cause', async () => {
    const choice = await chooseBackend({
      requested: 'auto',
      environment: {},
      availabilityTimeoutMs: 200,
      backends: [
        testBackend('tmux', () => Promise.reject(new Error('tmux -V crashed'))),
        testBackend('iterm2', () => new Promise<BackendAvailability>(() => {})),
        testBackend('in-process', available),
      ],
    });
    expect(choice.backendType).toBe('in-process');
    expect(choice.notices.join('\n')).toContain('tmux -V crashed');
    expect(choice.notices.join('\n')).toContain('did not answer within 200 ms');
  });

  it('an explicitly requested backend that is unavailable is an error with its reason and fix', async () => {
    const inProcess = testBackend('in-process', available);
    const attempt = chooseBackend({
      requested: 'iterm2',
      environment: {},
      backends: [testBackend('iterm2', itermVerificationFailed), inProcess],
    });
    await expect(attempt).rejects.toSatisfy(
      (error) =>
        MusterError.hasCode(error, 'UNAVAILABLE') &&
        error.message.includes('connection refused') &&
        error.message.includes('Enable Python API'),
    );
    expect(inProcess.checks).toBe(0);
  });

  it('an explicitly requested backend that this build lacks is an error naming what is offered', async () => {
    await expect(
      chooseBackend({
        requested: 'pty',
        environment: {},
        backends: [testBackend('tmux', available)],
      }),
    ).rejects.toThrow(
      /pty backend was requested but this build does not offer it \(offered: tmux\)/,
    );
  });

  it('an explicitly requested available backend is used without notices', async () => {
    const tmux = testBackend('tmux', available);
    const choice = await chooseBackend({ requested: 'tmux', environment: {}, backends: [tmux] });
    expect(choice).toEqual({ backend: tmux, backendType: 'tmux', notices: [] });
  });

  it('nothing available is an error listing every reason', async () => {
    await expect(
      chooseBackend({
        requested: 'auto',
        environment: {},
        backends: [testBackend('tmux', noTmux), testBackend('iterm2', itermVerificationFailed)],
      }),
    ).rejects.toThrow(
      /No backend can run here: tmux \(tmux is not on the PATH\); iterm2 \(it2 session list failed/,
    );
  });

  it('refuses bad options with what to pass', async () => {
    await expect(
      chooseBackend({ requested: 'screen' as never, environment: {}, backends: [] }),
    ).rejects.toThrow(/requested must be one of auto, in-process, tmux, iterm2, pty/);
    await expect(
      chooseBackend({
        requested: 'auto',
        environment: {},
        backends: [testBackend('tmux', available), testBackend('tmux', available)],
      }),
    ).rejects.toThrow(/two backends are named tmux/);
    await expect(
      chooseBackend({
        requested: 'auto',
        environment: {},
        backends: [],
        availabilityTimeoutMs: -1,
      }),
    ).rejects.toThrow(/availabilityTimeoutMs must be a positive/);
  });
});
