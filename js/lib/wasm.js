// The wasm modules: the runtime, loaded once on first use (or ahead of time with `init()`), and
// the on-demand modules (the mocks: mock model, mock GitHub server; see `moduleNames` in
// loader.js), each loaded only when one of its capabilities is first used.
import * as glue from '../loader.js';

let loaded = false;
/** name → the instantiated glue of an on-demand module, once loaded. */
const modules = new Map();
/** What `init()` and the on-demand loaders load when not told: set by entries that import them. */
const defaults = { runtime: undefined };

/**
 * Makes compiled `WebAssembly.Module`s (as workerd imports them) what `init()` and the on-demand
 * loaders load by default, instead of the `.wasm` files beside the package:
 * `useModules({ runtime, mocks, ... })`, one entry per module (see `moduleNames`).
 * `useModules(runtime, mocks)` is the older two-module form.
 */
export function useModules(given, mocks) {
  const table = given instanceof WebAssembly.Module || mocks !== undefined ? { runtime: given, mocks } : given;
  for (const [name, module] of Object.entries(table ?? {})) {
    if (name !== 'runtime' && !glue.moduleNames.includes(name)) {
      throw new TypeError(`useModules: no wasm module named ${JSON.stringify(name)} (known: runtime, ${glue.moduleNames.join(', ')})`);
    }
    defaults[name] = module;
  }
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

/** The exports of on-demand module `name`, loading it on first use (from `source` if given). */
export async function loadModule(name, source) {
  let exports = modules.get(name);
  if (exports === undefined) {
    exports = await glue.initModule(name, source ?? defaults[name]);
    modules.set(name, exports);
  }
  return exports;
}

/** The exports of on-demand module `name` when it is loaded already, else null. */
export function moduleIfLoaded(name) {
  return modules.get(name) ?? null;
}

/** Loads on-demand module `name` ahead of time, or from another place (see `loadModule`). */
export async function initModule(name, source) {
  await loadModule(name, source);
}

/** Loads the mocks module ahead of time, or from another place; later calls share the first. */
export async function initMocks(source) {
  await loadModule('mocks', source);
}

/** The mocks module's exports, loading it on first use. */
export function mocks(source) {
  return loadModule('mocks', source);
}

/**
 * The extension parsers' module (SKILL.md, commands, plugin.json, a plugin's .mcp.json),
 * loaded on first use: the runtime takes parsed records and never carries the parsers.
 */
export function ext(source) {
  return loadModule('ext', source);
}

/** The mocks module's exports when it is loaded already, else null. */
export function mocksIfLoaded() {
  return moduleIfLoaded('mocks');
}

/**
 * What the runtime module holds open right now, across agents: `{ timers, modelCalls,
 * toolCalls }` (all zero when nothing runs; before the module is loaded, zero too).
 */
export function diagnostics() {
  if (!loaded) return { timers: 0, modelCalls: 0, toolCalls: 0 };
  return JSON.parse(glue.runtimeDiagnostics());
}
