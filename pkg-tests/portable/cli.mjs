// The suite's entry for runtimes with a command line (Node, Deno, Bun): the environment comes
// as JSON in AW_SUITE_ENV (AW_SUITE_BENCH=N: the mock run benchmark instead); prints one JSON line, `{ passed, failed, ms }`, and exits 1 on failure.
import { benchMockRun } from './bench.mjs';
import { runTests } from './suite/index.mjs';

const read = (name) => (globalThis.Deno ? globalThis.Deno.env.get(name) : globalThis.process.env[name]);
const env = JSON.parse(read('AW_SUITE_ENV') ?? '{}');
const result = read('AW_SUITE_BENCH')
  ? { bench: await benchMockRun(Number(read('AW_SUITE_BENCH'))), passed: [], failed: [] }
  : await runTests(env, { filter: read('AW_SUITE_FILTER') || undefined });
console.log(JSON.stringify(result));
const exit = globalThis.Deno ? globalThis.Deno.exit : globalThis.process.exit;
exit(result.failed.length ? 1 : 0);
