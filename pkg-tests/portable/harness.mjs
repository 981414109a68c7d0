// A test harness small enough to run unchanged in Node, Deno, Bun, workerd and browsers: no
// `node:` import, no globals beyond the language, `fetch` and timers. Suite files register
// tests with `test(name, fn)`; a runtime's entry calls `runTests(env)` and reports the result.
// `fn` gets `env`: the loopback servers the orchestrator (./run.mjs) started, the runtime's
// name (`env.runtime`), so a test can say where it failed but never branch on it, and
// `env.share(key, value)`, which hands JSON back to the orchestrator (in the result's `shared`).

const registered = [];

/** Registers a test; `fn(env)` may be async and fails by throwing. */
export function test(name, fn, { timeoutMs = 30_000 } = {}) {
  registered.push({ name, fn, timeoutMs });
}

/**
 * Runs every registered test in order; resolves to `{ passed, failed: [{ name, error }], ms,
 * shared }` (`shared`: what tests passed to `env.share`).
 */
export async function runTests(env, { filter } = {}) {
  const passed = [];
  const failed = [];
  const shared = {};
  env = { ...env, share: (key, value) => (shared[key] = value) };
  const started = performance.now();
  for (const { name, fn, timeoutMs } of registered) {
    if (filter && !name.includes(filter)) continue;
    let timer;
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      await Promise.race([fn(env), timeout]);
      passed.push(name);
    } catch (error) {
      failed.push({ name, error: String(error?.stack ?? error) });
    } finally {
      clearTimeout(timer);
    }
  }
  return { passed, failed, ms: Math.round(performance.now() - started), shared };
}

const show = (value) => {
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
};

/** Assertions in the spirit of node:assert/strict, for runtimes without it. */
export const assert = {
  ok(value, message) {
    if (!value) throw new Error(message ?? `expected a truthy value, got ${show(value)}`);
  },
  equal(actual, expected, message) {
    if (!Object.is(actual, expected)) {
      throw new Error(message ?? `expected ${show(expected)}, got ${show(actual)}`);
    }
  },
  deepEqual(actual, expected, message) {
    if (show(actual) !== show(expected)) {
      throw new Error(message ?? `expected ${show(expected)}, got ${show(actual)}`);
    }
  },
  match(text, pattern, message) {
    if (typeof text !== 'string' || !pattern.test(text)) {
      throw new Error(message ?? `expected ${show(text)} to match ${pattern}`);
    }
  },
  /** `promise` must reject with an error for which `check(error)` is true. */
  async rejects(promise, check, message) {
    let caught = null;
    let rejected = false;
    try {
      await promise;
    } catch (error) {
      caught = error;
      rejected = true;
    }
    if (!rejected) throw new Error(message ?? 'expected a rejection, the promise resolved');
    if (!check(caught)) throw new Error(message ?? `unexpected rejection: ${caught?.name}: ${caught?.message}`);
  },
  /** `fn` must throw (or reject) an instance of `type` whose message matches `pattern`. */
  async throws(fn, type, pattern) {
    let caught = null;
    try {
      await fn();
    } catch (error) {
      caught = error;
    }
    if (!caught) throw new Error(`expected a ${type.name}, nothing was thrown`);
    if (!(caught instanceof type)) {
      throw new Error(`expected a ${type.name}, got ${caught?.constructor?.name}: ${caught?.message}`);
    }
    if (pattern && !pattern.test(caught.message)) {
      throw new Error(`expected the message to match ${pattern}, got ${show(caught.message)}`);
    }
  },
};

/**
 * A seeded pseudo-random generator (mulberry32): `next()` in [0, 1). Tests that pick random
 * moments take their seed from `env.seed` (run.mjs prints it), so a failing schedule can be
 * replayed with the same choices (the timers themselves still jitter).
 */
export function seededRandom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Records promise rejections left unhandled until `stop()`, through whichever hooks the runtime
 * has: `process.on('unhandledRejection' / 'rejectionHandled')` (Node, Bun) and the global
 * `unhandledrejection` / `rejectionhandled` events (browsers, Deno, workerd; default prevented
 * so the runtime does not report or exit). A rejection handled after it was reported (workerd
 * reports a cancelled fetch body's read that way) is taken back. `reasons` lists what is left.
 */
export function watchUnhandledRejections() {
  const open = new Map(); // promise -> reason
  const reasons = [];
  const sync = () => reasons.splice(0, reasons.length, ...open.values());
  const onUnhandled = (reason, promise) => {
    open.set(promise ?? reason, reason);
    sync();
  };
  const onHandled = (promise) => {
    open.delete(promise);
    sync();
  };
  const onEvent = (event) => {
    event.preventDefault();
    onUnhandled(event.reason, event.promise);
  };
  const onHandledEvent = (event) => onHandled(event.promise);
  const proc = globalThis.process;
  const viaProcess = typeof proc?.on === 'function' && typeof proc?.off === 'function';
  const viaEvent = typeof globalThis.addEventListener === 'function';
  if (viaProcess) {
    proc.on('unhandledRejection', onUnhandled);
    proc.on('rejectionHandled', onHandled);
  }
  if (viaEvent) {
    globalThis.addEventListener('unhandledrejection', onEvent);
    globalThis.addEventListener('rejectionhandled', onHandledEvent);
  }
  return {
    reasons,
    stop() {
      if (viaProcess) {
        proc.off('unhandledRejection', onUnhandled);
        proc.off('rejectionHandled', onHandled);
      }
      if (viaEvent) {
        globalThis.removeEventListener('unhandledrejection', onEvent);
        globalThis.removeEventListener('rejectionhandled', onHandledEvent);
      }
    },
  };
}

/** Collects agent events: `onEvent` for run options, `types()` in order, `of(type)`. */
export function eventLog() {
  const events = [];
  return {
    events,
    onEvent: (event) => events.push(event),
    types: () => events.map((e) => e.type),
    of: (type) => events.filter((e) => e.type === type),
  };
}
