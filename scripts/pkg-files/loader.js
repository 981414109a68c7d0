// Loads agentwire's wasm modules in Node (ESM, 20+) and in browsers, with no bundler plugin.
//
// The glue that wasm-bindgen generates (`--target web`) fetches the .wasm from a URL. Browsers
// can do that; Node's fetch cannot read `file:` URLs, so there the bytes are read from disk by
// the reader the server entry sets (`setFileReader`); this file names no `node:` module.
//
// Two modules: the runtime (`agentwire_bg.wasm`, glue `agentwire.js`), and the demo stand-ins
// (`agentwire_mocks_bg.wasm`, glue `agentwire_mocks.js`: the mock model and the mock GitHub
// server), kept apart so that an agent with a real model and real servers never downloads them.
import initWasm from './agentwire.js';

export * from './agentwire.js';

let ready = null;
let mocks = null;

/**
 * Instantiates the runtime module. Call (and await) it once before using any export; later
 * calls return the same promise, and a failed attempt may be retried.
 *
 * `source` optionally says where the module comes from: a URL (or URL string), a `Response`
 * or a promise of one, bytes (`ArrayBuffer`, typed array, Node `Buffer`), or a compiled
 * `WebAssembly.Module`. By default it is `agentwire_bg.wasm` beside this file.
 */
export function init(source) {
  if (ready === null) {
    // Written literally so bundlers that follow `new URL(..., import.meta.url)` ship the file.
    ready = load(initWasm, source ?? new URL('agentwire_bg.wasm', import.meta.url)).catch((err) => {
      ready = null;
      throw err;
    });
  }
  return ready;
}

/**
 * Instantiates the mocks module (imported on first call) and resolves to its exports; later
 * calls return the same promise, and a failed attempt may be retried. `source` as for `init`;
 * by default `agentwire_mocks_bg.wasm` beside this file.
 */
export function initMocks(source) {
  if (mocks === null) {
    mocks = (async () => {
      const glue = await import('./agentwire_mocks.js');
      await load(glue.default, source ?? new URL('agentwire_mocks_bg.wasm', import.meta.url));
      return glue;
    })().catch((err) => {
      mocks = null;
      throw err;
    });
  }
  return mocks;
}

/** Reads a `file:` URL to bytes; set by the Node/Deno/Bun entry (`server.js`), else null. */
let fileReader = null;

/**
 * Lets `init` read `file:` URLs with `read(url)` (a `node:fs/promises` `readFile`). Only the
 * server entry calls it, so the browser and workerd entries never name a `node:` module.
 */
export function setFileReader(read) {
  fileReader = read;
}

async function load(instantiate, source) {
  let where = source;
  if (typeof where === 'string' && /^file:/i.test(where)) where = new URL(where);
  if (where instanceof URL && where.protocol === 'file:') {
    // Without a reader the URL goes to the glue's fetch (Deno and Bun fetch file: URLs).
    if (fileReader) where = await fileReader(where);
  }
  await instantiate({ module_or_path: where });
}
