// The wasm module: loaded once, on first use (or ahead of time with `init()`).
import * as glue from '../loader.js';

let loaded = false;

/** Loads and instantiates the wasm module; later calls share the first one's promise. */
export async function init(source) {
  await glue.init(source);
  loaded = true;
}

/** The wasm exports; throws if the module has not been loaded yet. */
export function wasm(where) {
  if (!loaded) {
    throw new Error(
      `${where}: the agentwire wasm module is not loaded yet; await init() or createAgent() first`,
    );
  }
  return glue;
}
