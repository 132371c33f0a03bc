// Who is running now, for code inside the lead process (R27). Every in-process member runs
// under one AsyncLocalStorage store; anything it awaits, schedules or calls sees that store.
// Shared resources (watchers, emitters, HTTP agents) are created outside members with
// `runOutsideMembers`, and listeners whose identity matters are bound with `bindToMember`.
import { AsyncLocalStorage } from 'node:async_hooks';

/** The identity of the in-process member whose code is running now. */
export interface MemberIdentity {
  readonly agentId: string;
  readonly agentName: string;
  readonly teamName: string;
}

/** Where an error that escaped a member's code is reported: the member that owns the store. */
export type MemberCrashOrigin = 'uncaughtException' | 'unhandledRejection';

/** The store one member runs under (internal: the identity plus where its crashes go). */
export interface MemberStore {
  readonly identity: MemberIdentity;
  /** Ends the owning member because `error` escaped its code. */
  readonly crash: (error: unknown, origin: MemberCrashOrigin) => void;
}

/**
 * One storage per process, even when two copies of this package are loaded (a bundled tool
 * beside the workspace one): otherwise a member started by one copy would be nobody to the
 * other. The key names the store's shape; a change to `MemberStore` needs a new key.
 */
const STORAGE_KEY = Symbol.for('@muster/backends: in-process member storage, v1');

function sharedStorage(): AsyncLocalStorage<MemberStore> {
  const holder = globalThis as { [STORAGE_KEY]?: AsyncLocalStorage<MemberStore> };
  holder[STORAGE_KEY] ??= new AsyncLocalStorage<MemberStore>();
  return holder[STORAGE_KEY];
}

const memberStorage = sharedStorage();

/**
 * The in-process member whose code is running now, or `undefined` in the lead's own code (and
 * in any process member). Follows awaits, timers, `setImmediate`, `nextTick` and promise
 * callbacks; a listener on a shared emitter sees the emitter's caller unless it was bound with
 * `bindToMember` when it was registered.
 */
export function currentMember(): MemberIdentity | undefined {
  return memberStorage.getStore()?.identity;
}

/**
 * Runs `fn` outside every member: what it creates (an `fs.watch` watcher, a shared emitter's
 * first listener, a pool) does not carry the calling member's identity to every later callback.
 * Use it for resources shared by several members, then dispatch to members explicitly.
 */
export function runOutsideMembers<Result>(fn: () => Result): Result {
  return memberStorage.exit(fn);
}

/**
 * Returns `fn` bound to the member running now (`AsyncLocalStorage.bind`): however it is called
 * later (by a shared emitter, another member's code, the lead), it runs as that member. Outside
 * members it binds to "no member". Bind a listener when you register it on a shared emitter.
 */
export function bindToMember<Callback extends (...parameters: never[]) => unknown>(
  fn: Callback,
): Callback {
  if (typeof fn !== 'function') {
    throw new TypeError(
      `bindToMember expects a function, got ${typeof fn}: pass the listener itself`,
    );
  }
  return AsyncLocalStorage.bind(fn);
}

/** Runs `fn` as the member `store` (internal: only the in-process backend starts members). */
export function runAsMember<Result>(store: MemberStore, fn: () => Result): Result {
  return memberStorage.run(store, fn);
}

/** The whole store of the member running now (internal: for crash attribution). */
export function currentMemberStore(): MemberStore | undefined {
  return memberStorage.getStore();
}
