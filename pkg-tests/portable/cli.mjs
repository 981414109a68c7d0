// The suite's entry for runtimes with a command line (Node, Deno, Bun): the environment comes
// as JSON in AW_SUITE_ENV; prints one JSON line, `{ passed, failed, ms }`, and exits 1 on failure.
import { runTests } from './suite/index.mjs';

const read = (name) => (globalThis.Deno ? globalThis.Deno.env.get(name) : globalThis.process.env[name]);
const env = JSON.parse(read('AW_SUITE_ENV') ?? '{}');
const result = await runTests(env, { filter: read('AW_SUITE_FILTER') || undefined });
console.log(JSON.stringify(result));
const exit = globalThis.Deno ? globalThis.Deno.exit : globalThis.process.exit;
exit(result.failed.length ? 1 : 0);
