// agentwire for Cloudflare Workers / workerd (the `workerd` export condition): the wasm modules
// are imported as compiled `WebAssembly.Module`s (how Workers load wasm: no fetch of a file URL,
// no I/O at the top level); they are instantiated on first use, inside a request. Every module
// of the package is imported here (a new on-demand module adds its line).
import runtime from './agentwire_bg.wasm';
import mocks from './agentwire_mocks_bg.wasm';
import anthropic from './agentwire_anthropic_bg.wasm';
import search from './agentwire_search_bg.wasm';
import ext from './agentwire_ext_bg.wasm';
import { useModules } from './lib/wasm.js';

useModules({ runtime, mocks, anthropic, search, ext });

export * from './index.js';
