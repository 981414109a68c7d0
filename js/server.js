// agentwire for Node, Deno and Bun (the `node`, `deno` and `bun` export conditions): the main
// entry, plus reading the .wasm files from disk, which Node's fetch cannot do for `file:` URLs.
import { readFile } from 'node:fs/promises';
import { setFileReader } from './lib/wasm.js';

setFileReader(readFile);

export * from './index.js';
