export * from './agentwire.js';

/** Where a wasm module comes from; by default its `.wasm` file beside the package. */
export type WasmSource =
  | string
  | URL
  | Response
  | PromiseLike<Response>
  | ArrayBuffer
  | ArrayBufferView
  | WebAssembly.Module;

/**
 * Instantiates the runtime module (`agentwire_bg.wasm`). Await it once before using any export;
 * later calls return the same promise.
 */
export function init(source?: WasmSource): Promise<void>;

/**
 * Instantiates the mocks module (`agentwire_mocks_bg.wasm`: the mock model and the mock GitHub
 * server) and resolves to its exports; later calls return the same promise.
 */
export function initMocks(source?: WasmSource): Promise<typeof import('./agentwire_mocks.js')>;

/** The names of the on-demand modules `initModule` knows (e.g. `mocks`). */
export const moduleNames: readonly string[];

/**
 * Instantiates the on-demand module `name` (`agentwire_<name>_bg.wasm` unless `source` says
 * otherwise) and resolves to its exports; later calls return the same promise.
 */
export function initModule(name: string, source?: WasmSource): Promise<Record<string, unknown>>;
