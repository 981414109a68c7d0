// Loads agentwire's wasm modules in Node (ESM, 20+) and in browsers, with no bundler plugin.
//
// The glue that wasm-bindgen generates (`--target web`) fetches the .wasm from a URL. Browsers
// can do that; Node's fetch cannot read `file:` URLs, so there the bytes are read from disk by
// the reader the server entry sets (`setFileReader`); this file names no `node:` module.
//
// The runtime (`agentwire_bg.wasm`, glue `agentwire.js`), and on-demand modules (`agentwire_<name>_bg.wasm`,
// glue `agentwire_<name>.js`: e.g. the mock model and the mock GitHub server), kept apart so that
// an agent that does not use a capability never downloads it.
import initWasm from './agentwire.js';

export * from './agentwire.js';

/**
 * The on-demand modules: how to import each glue and where its `.wasm` is by default. Both are
 * written literally so that bundlers see the files (a dynamic `import()` of a literal becomes a
 * chunk, `new URL(literal, import.meta.url)` an asset). A new module adds one line here.
 */
const MODULES = {
  mocks: {
    glue: () => import('./agentwire_mocks.js'),
    url: () => new URL('agentwire_mocks_bg.wasm', import.meta.url),
  },
  anthropic: {
    glue: () => import('./agentwire_anthropic.js'),
    url: () => new URL('agentwire_anthropic_bg.wasm', import.meta.url),
  },
  search: {
    glue: () => import('./agentwire_search.js'),
    url: () => new URL('agentwire_search_bg.wasm', import.meta.url),
  },
  ext: {
    glue: () => import('./agentwire_ext.js'),
    url: () => new URL('agentwire_ext_bg.wasm', import.meta.url),
  },
};

let ready = null;
/** name → promise of the instantiated glue. */
const loaded = new Map();

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

/** The names of the on-demand modules `initModule` knows. */
export const moduleNames = Object.keys(MODULES);

/**
 * Instantiates the on-demand module `name` (its glue imported on first call) and resolves to
 * its exports; later calls return the same promise, and a failed attempt may be retried.
 * `source` as for `init`; by default `agentwire_<name>_bg.wasm` beside this file.
 */
export function initModule(name, source) {
  const module = Object.hasOwn(MODULES, name) ? MODULES[name] : undefined;
  if (!module) {
    return Promise.reject(new Error(`no wasm module named ${JSON.stringify(name)} (known: ${moduleNames.join(', ')})`));
  }
  let promise = loaded.get(name);
  if (promise === undefined) {
    promise = (async () => {
      const glue = await module.glue();
      await load(glue.default, source ?? module.url());
      return glue;
    })().catch((err) => {
      loaded.delete(name);
      throw err;
    });
    loaded.set(name, promise);
  }
  return promise;
}

/** Instantiates the mocks module and resolves to its exports (`initModule('mocks', source)`). */
export function initMocks(source) {
  return initModule('mocks', source);
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
