// Which backend a team's members run in (R15). `auto` tries, in order: tmux when the lead is
// inside tmux, tmux on the PATH, iTerm2, pty, in-process. Every step down is announced in a
// notice, never taken quietly; a backend asked for by name that cannot run here is an error
// that says why and what to install.
import { BACKEND_TYPES, type BackendType } from '@muster/protocol';
import { BackendError } from './backend-error.js';
import type { Backend, BackendAvailability } from './backend-types.js';

/** What {@link chooseBackend} needs. */
export interface ChooseBackendOptions {
  /** `auto`, or the backend the user asked for by name (`--backend tmux`). */
  requested: 'auto' | BackendType;
  /**
   * The lead's environment as it was when the lead started (capture it early: `TMUX` may be
   * changed later by the lead's own tmux use). `TMUX` tells whether the lead is inside tmux.
   */
  environment: Readonly<Record<string, string | undefined>>;
  /** The backends this build offers (any objects implementing `Backend`), at most one per name. */
  backends: readonly Backend[];
  /** How long one `availability()` may take before it counts as unavailable (default 10 000 ms). */
  availabilityTimeoutMs?: number;
}

/** The backend chosen, its type (record it as the member's `backendType`) and what to tell the user. */
export interface BackendChoice {
  backend: Backend;
  backendType: BackendType;
  /** One sentence per step down or choice worth knowing; show every one to the user. */
  notices: string[];
}

/** The order `auto` tries, as seed 003 and runtime.md §8 R15 give it. */
export const AUTO_BACKEND_ORDER: readonly BackendType[] = ['tmux', 'iterm2', 'pty', 'in-process'];

const DEFAULT_AVAILABILITY_TIMEOUT_MS = 10_000;

/**
 * Picks the backend members run in. `auto` goes down {@link AUTO_BACKEND_ORDER} and takes the
 * first available one; each backend passed over adds a notice with its reason and fix, and
 * the choice itself is announced when it is not the first. A backend requested by name that
 * is unavailable (or not offered) throws `BackendError('UNAVAILABLE')` with the reason and
 * the fix: there is no fallback from an explicit request. When nothing is available, it
 * throws `UNAVAILABLE` listing every reason.
 */
export async function chooseBackend(options: ChooseBackendOptions): Promise<BackendChoice> {
  const { requested, environment, backends } = checkOptions(options);
  const timeoutMs = options.availabilityTimeoutMs ?? DEFAULT_AVAILABILITY_TIMEOUT_MS;
  const byName = new Map(backends.map((backend) => [backend.name, backend]));

  if (requested !== 'auto') {
    const backend = byName.get(requested);
    if (backend === undefined) {
      throw new BackendError({
        code: 'UNAVAILABLE',
        message: `The ${requested} backend was requested but this build does not offer it (offered: ${[...byName.keys()].join(', ') || 'none'}). Choose one of those, or "auto".`,
        details: { requested, offered: [...byName.keys()] },
      });
    }
    const availability = await checkAvailability(backend, timeoutMs);
    if (!availability.available) {
      throw new BackendError({
        code: 'UNAVAILABLE',
        message: `The ${requested} backend was requested but cannot run here: ${availability.reason}. ${availability.fix}`,
        details: { requested, reason: availability.reason, fix: availability.fix },
      });
    }
    return { backend, backendType: backend.name, notices: notesOf(backend, availability) };
  }

  const insideTmux = (environment.TMUX ?? '') !== '';
  const notices: string[] = [];
  const passedOver: string[] = [];
  const passedOverNames: string[] = [];
  for (const name of AUTO_BACKEND_ORDER) {
    const backend = byName.get(name);
    if (backend === undefined) {
      notices.push(`${name} is not offered by this build; trying the next backend.`);
      passedOver.push(`${name} (not offered)`);
      passedOverNames.push(name);
      continue;
    }
    const availability = await checkAvailability(backend, timeoutMs);
    if (!availability.available) {
      notices.push(`${name} is unavailable: ${availability.reason}. ${availability.fix}`);
      passedOver.push(`${name} (${availability.reason})`);
      passedOverNames.push(name);
      continue;
    }
    if (name === 'tmux') {
      notices.push(
        insideTmux
          ? 'Members run in tmux panes split from your window (the lead is inside tmux).'
          : 'Members run in tmux on a private server (tmux is on the PATH; the lead is not inside tmux); attach to watch them.',
      );
    }
    if (passedOver.length > 0) {
      notices.push(
        `Using the ${name} backend instead of ${passedOverNames.join(', ')}; members are recorded with backendType "${name}".`,
      );
    }
    notices.push(...notesOf(backend, availability));
    return { backend, backendType: backend.name, notices };
  }
  throw new BackendError({
    code: 'UNAVAILABLE',
    message: `No backend can run here: ${passedOver.join('; ')}. ${notices.join(' ')}`,
    details: { passedOver },
  });
}

function notesOf(backend: Backend, availability: BackendAvailability): string[] {
  if (!availability.available) return [];
  return (availability.notes ?? []).map((note) => `${backend.name}: ${note}`);
}

/** `availability()` with a deadline; a throw or a timeout counts as unavailable, with the cause. */
async function checkAvailability(
  backend: Backend,
  timeoutMs: number,
): Promise<BackendAvailability> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<BackendAvailability>((resolve) => {
    timer = setTimeout(
      () =>
        resolve({
          available: false,
          reason: `its availability check did not answer within ${timeoutMs} ms`,
          fix: `Check that ${backend.name} works in this terminal, or choose another backend.`,
        }),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([
      backend.availability().catch((error: unknown): BackendAvailability => ({
        available: false,
        reason: `its availability check failed (${error instanceof Error ? error.message : String(error)})`,
        fix: `Fix the error above, or choose another backend.`,
      })),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function checkOptions(options: ChooseBackendOptions): ChooseBackendOptions {
  const problem = (what: string) =>
    new BackendError({ code: 'INVALID_SPEC', message: `chooseBackend: ${what}` });
  if (typeof options !== 'object' || options === null) {
    throw problem('pass { requested, environment, backends }.');
  }
  const allowed: readonly string[] = ['auto', ...BACKEND_TYPES];
  if (!allowed.includes(options.requested)) {
    throw problem(
      `requested must be one of ${allowed.join(', ')}, got ${JSON.stringify(options.requested)}.`,
    );
  }
  if (typeof options.environment !== 'object' || options.environment === null) {
    throw problem('environment must be the lead environment (an object such as process.env).');
  }
  if (!Array.isArray(options.backends)) {
    throw problem('backends must be an array of Backend objects.');
  }
  const seen = new Set<string>();
  for (const backend of options.backends as readonly Backend[]) {
    if (
      typeof backend !== 'object' ||
      backend === null ||
      !BACKEND_TYPES.includes(backend.name) ||
      typeof backend.availability !== 'function'
    ) {
      throw problem(
        `every backend needs a name (${BACKEND_TYPES.join(', ')}) and an availability() method.`,
      );
    }
    if (seen.has(backend.name)) throw problem(`two backends are named ${backend.name}; pass one.`);
    seen.add(backend.name);
  }
  if (
    options.availabilityTimeoutMs !== undefined &&
    !(Number.isFinite(options.availabilityTimeoutMs) && options.availabilityTimeoutMs > 0)
  ) {
    throw problem('availabilityTimeoutMs must be a positive number of milliseconds.');
  }
  return options;
}
