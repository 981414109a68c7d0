// The wasm modules: the runtime, loaded once on first use (or ahead of time with `init()`), and
// the mocks (mock model, mock GitHub server), loaded only when one of them is first used.
import * as glue from '../loader.js';

let loaded = false;
let mocksGlue = null;

/** Loads and instantiates the runtime module; later calls share the first one's promise. */
export async function init(source) {
  await glue.init(source);
  loaded = true;
}

/** The runtime's wasm exports; throws if the module has not been loaded yet. */
export function wasm(where) {
  if (!loaded) {
    throw new Error(
      `${where}: the agentwire wasm module is not loaded yet; await init() or createAgent() first`,
    );
  }
  return glue;
}

/** Loads the mocks module ahead of time, or from another place; later calls share the first. */
export async function initMocks(source) {
  await mocks(source);
}

/** The mocks module's exports, loading it on first use. */
export async function mocks(source) {
  mocksGlue ??= await glue.initMocks(source);
  return mocksGlue;
}

/** The mocks module's exports when it is loaded already, else null. */
export function mocksIfLoaded() {
  return mocksGlue;
}

/**
 * What the runtime module holds open right now, across agents: `{ timers, modelCalls,
 * toolCalls }` (all zero when nothing runs; before the module is loaded, zero too).
 */
export function diagnostics() {
  if (!loaded) return { timers: 0, modelCalls: 0, toolCalls: 0 };
  return JSON.parse(glue.runtimeDiagnostics());
}
