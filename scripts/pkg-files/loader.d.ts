export * from './agentwire.js';

/** Where the wasm module comes from; by default `agentwire_bg.wasm` beside the package. */
export type WasmSource =
  | string
  | URL
  | Response
  | PromiseLike<Response>
  | ArrayBuffer
  | ArrayBufferView
  | WebAssembly.Module;

/**
 * Instantiates the wasm module. Await it once before using any export; later calls return the
 * same promise.
 */
export function init(source?: WasmSource): Promise<void>;
