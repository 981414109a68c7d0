// Loads agentwire's wasm module in Node (ESM, 20+) and in browsers, with no bundler plugin.
//
// The glue that wasm-bindgen generates (`--target web`) fetches the .wasm from a URL. Browsers
// can do that; Node's fetch cannot read `file:` URLs, so there the bytes are read from disk.
// The choice follows the URL of the .wasm (beside this file), not a guess about the runtime.
import initWasm from './agentwire.js';

export * from './agentwire.js';

let ready = null;

/**
 * Instantiates the wasm module. Call (and await) it once before using any export; later calls
 * return the same promise, and a failed attempt may be retried.
 *
 * `source` optionally says where the module comes from: a URL (or URL string), a `Response`
 * or a promise of one, bytes (`ArrayBuffer`, typed array, Node `Buffer`), or a compiled
 * `WebAssembly.Module`. By default it is `agentwire_bg.wasm` beside this file.
 */
export function init(source) {
  if (ready === null) {
    ready = load(source).catch((err) => {
      ready = null;
      throw err;
    });
  }
  return ready;
}

async function load(source) {
  // Written literally so bundlers that follow `new URL(..., import.meta.url)` ship the file.
  let where = source ?? new URL('agentwire_bg.wasm', import.meta.url);
  if (typeof where === 'string' && /^file:/i.test(where)) where = new URL(where);
  if (where instanceof URL && where.protocol === 'file:') where = await readFileUrl(where);
  await initWasm({ module_or_path: where });
}

async function readFileUrl(url) {
  // Hidden from bundlers: this branch only ever runs where `file:` URLs exist (Node, Deno).
  const fs = await import(/* webpackIgnore: true */ /* @vite-ignore */ 'node:fs/promises');
  return fs.readFile(url);
}
