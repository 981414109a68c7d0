// The package's export conditions: the browser and workerd entries bundle for a non-Node
// platform and never reach `child_process` (or any `node:` module), the WebContainer-style
// constraint; the Node entry is the one that reads the wasm from disk.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

function esbuild() {
  const tools = process.env.AW_TOOLS_DIR;
  if (!tools) throw new Error('AW_TOOLS_DIR must point at pkg-tests/node_modules; run pkg-tests/run');
  return join(tools, 'esbuild/bin/esbuild');
}

/** Bundles `import * from 'agentwire'` for `conditions`; returns `{ status, stderr, inputs, code }`. */
function bundle(conditions) {
  const dir = mkdtempSync(join(tmpdir(), 'aw-entry-'));
  try {
    const run = spawnSync(esbuild(), [
      '--bundle', '--format=esm', '--platform=neutral', `--conditions=${conditions}`,
      '--external:*.wasm', `--metafile=${join(dir, 'meta.json')}`, `--outfile=${join(dir, 'out.js')}`,
      '--log-level=error',
    ], { input: "export * from 'agentwire';", cwd: process.cwd(), encoding: 'utf8' });
    if (run.status !== 0) return { status: run.status, stderr: run.stderr };
    const meta = JSON.parse(readFileSync(join(dir, 'meta.json'), 'utf8'));
    return { status: 0, inputs: Object.keys(meta.inputs), code: readFileSync(join(dir, 'out.js'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

for (const condition of ['browser', 'workerd']) {
  test(`the ${condition} entry bundles for the browser platform without any node: module`, () => {
    const out = bundle(condition);
    assert.equal(out.status, 0, `esbuild failed: ${out.stderr}`);
    assert.deepEqual(out.inputs.filter((i) => /node:|child_process/.test(i)), []);
    assert.doesNotMatch(out.code, /child_process|node:fs/);
  });
}

test('the workerd entry takes the wasm modules as imports; the browser entry does not', () => {
  assert.ok(bundle('workerd').inputs.some((i) => /workerd\.js$/.test(i)));
  assert.ok(!bundle('browser').inputs.some((i) => /workerd\.js$|server\.js$/.test(i)));
});

test('the node entry (what Node resolves) reads the wasm from disk and cannot bundle for a non-Node platform', () => {
  const out = bundle('node');
  assert.notEqual(out.status, 0, 'the node entry bundled for a non-Node platform');
  assert.match(out.stderr, /node:fs\/promises/);
});

/** Every file of the installed package (the tarball as npm unpacked it), relative paths. */
function shipped(dir = join(process.cwd(), 'node_modules/agentwire'), prefix = '') {
  return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? shipped(dir, `${prefix}${e.name}/`) : [`${prefix}${e.name}`],
  );
}

test('the tarball ships exactly the entries, their types, lib/, the wasm modules and README', () => {
  const files = shipped().sort();
  const allowed = /^(index|server|workerd|node|loader)\.(js|d\.ts)$|^lib\/[\w-]+\.js$|^agentwire(_[a-z]+)?(\.js|_bg\.wasm)$|^(README\.md|package\.json)$/;
  assert.deepEqual(files.filter((f) => !allowed.test(f)), []);
  const pkg = JSON.parse(readFileSync('node_modules/agentwire/package.json', 'utf8'));
  // Every file an export names ships, and every entry has its types first.
  const values = (v) => (typeof v === 'string' ? [v] : Object.values(v).flatMap(values));
  const targets = values(pkg.exports);
  // A subpath pattern (`./*.wasm`) must match at least one shipped file.
  const ships = (t) => {
    const [head, tail] = t.slice(2).split('*');
    return tail === undefined ? files.includes(head) : files.some((f) => f.startsWith(head) && f.endsWith(tail));
  };
  assert.deepEqual(targets.filter((t) => !ships(t)), []);
  // Every wasm module has its glue, and the workerd entry imports each of them.
  const wasm = files.filter((f) => f.endsWith('_bg.wasm'));
  assert.deepEqual(wasm.filter((f) => !files.includes(f.replace(/_bg\.wasm$/, '.js'))), []);
  const workerd = readFileSync('node_modules/agentwire/workerd.js', 'utf8');
  assert.deepEqual(wasm.filter((f) => !workerd.includes(`'./${f}'`)), [], 'workerd.js imports every wasm module');
  for (const [condition, entry] of Object.entries(pkg.exports['.'])) {
    if (typeof entry === 'object') assert.equal(Object.keys(entry)[0], 'types', `${condition} lists types first`);
  }
  for (const key of ['license', 'repository', 'keywords', 'engines', 'sideEffects', 'types']) {
    assert.ok(pkg[key], `package.json has no ${key}`);
  }
  assert.ok(files.includes('README.md') && files.includes('lib/agent.js') && files.includes('workerd.js'));
});
