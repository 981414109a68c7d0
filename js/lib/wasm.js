// The wasm modules: the runtime, loaded once on first use (or ahead of time with `init()`), and
// the mocks (mock model, mock GitHub server), loaded only when one of them is first used.
import * as glue from '../loader.js';

let loaded = false;
let mocksGlue = null;
/** What `init()` / `initMocks()` load when not told: set by entries that import the modules. */
const defaults = { runtime: undefined, mocks: undefined };

/**
 * Makes `runtime` and `mocks` (compiled `WebAssembly.Module`s, as workerd imports them) what
 * `init()` and the mocks load by default, instead of the `.wasm` files beside the package.
 */
export function useModules(runtime, mocks) {
  defaults.runtime = runtime;
  defaults.mocks = mocks;
}

/** Lets the runtime read `file:` URLs from disk (Node); see loader.js. */
export const setFileReader = glue.setFileReader;

/** Loads and instantiates the runtime module; later calls share the first one's promise. */
export async function init(source) {
  await glue.init(source ?? defaults.runtime);
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
  mocksGlue ??= await glue.initMocks(source ?? defaults.mocks);
  return mocksGlue;
}

let extGlue = null;

/**
 * The extension parsers' module (SKILL.md, commands, plugin.json, a plugin's .mcp.json),
 * loading it on first use: the runtime takes parsed records and never carries the parsers.
 */
export async function ext(source) {
  extGlue ??= await glue.initExt(source);
  return extGlue;
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
