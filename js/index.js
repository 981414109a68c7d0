// agentwire: an embeddable agent runtime (Rust core compiled to WebAssembly) for Node and
// browsers. See README.md and index.d.ts for the API.
export { Agent, createAgent } from './lib/agent.js';
export { memorySession, PausedError } from './lib/session.js';
export { diagnostics, init, initMocks, initModule } from './lib/wasm.js';
export { mockModel, openaiCompatible } from './lib/models.js';
export { anthropic } from './lib/anthropic.js';
export { mockGithub } from './lib/transports.js';
export { httpTransport } from './lib/http.js';
export { openaiCodec } from './lib/codec.js';
export { parseCommand, parsePluginManifest, parseSkill } from './lib/parse.js';
