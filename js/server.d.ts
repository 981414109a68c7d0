// Types of the Node/Deno/Bun entry: the same API as the main entry.
export * from './index.js';
