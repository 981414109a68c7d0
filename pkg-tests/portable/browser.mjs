// The portable suite in headless Chromium through the package's `browser` entry: a loopback
// static server gives the page the installed package (node_modules/agentwire, its `exports`
// resolved with the `browser` condition into an import map, no bundler) and the suite files;
// the page runs the suite and hands its result back through playwright-core. The page's origin
// is `localhost`, the suite's servers are on 127.0.0.1: every HTTP test is cross-origin (CORS).
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { extname, join, normalize } from 'node:path';
import { launchChromium } from './chromium.mjs';

const TYPES = { '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json' };

/** What `import 'agentwire'` resolves to for a browser: the `browser` condition of `exports['.']`. */
function browserEntry(pkg) {
  const entry = pkg.exports?.['.']?.browser;
  const target = typeof entry === 'string' ? entry : entry?.default;
  if (typeof target !== 'string') throw new Error('agentwire/package.json has no `browser` export for "."');
  return target.replace(/^\.\//, '');
}

const page = (entry) => `<!doctype html><meta charset="utf-8">
<script type="importmap">${JSON.stringify({ imports: { agentwire: `/agentwire/${entry}` } })}</script>
<script type="module">
import { runTests } from '/portable/suite/index.mjs';
import { benchMockRun } from '/portable/bench.mjs';
window.runSuite = (env) => runTests(env, { filter: env.filter });
window.benchMockRun = benchMockRun;
</script>`;

/** Serves `/` (the page), `/agentwire/*` from `pkgDir` and `/portable/*` from `portableDir`. */
async function staticServer(pkgDir, portableDir, html) {
  const roots = { agentwire: pkgDir, portable: portableDir };
  const server = createServer(async (req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname));
    if (path === '/favicon.ico') return res.writeHead(204).end();
    if (path === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return res.end(html);
    }
    const [, root, ...rest] = path.split('/');
    try {
      if (!roots[root] || rest.includes('..')) throw new Error('outside the served folders');
      const data = await readFile(join(roots[root], ...rest));
      res.writeHead(200, { 'content-type': TYPES[extname(path)] ?? 'application/octet-stream' });
      res.end(data);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

/**
 * Runs the suite (or, with `bench`, that many mock runs) in a fresh headless Chromium page;
 * resolves to the suite's `{ passed, failed, ms }` (or `{ bench }`), page errors as failures.
 */
export async function viaChromium(env, { project, portableDir, bench = 0 }) {
  const pkgDir = join(project, 'node_modules/agentwire');
  const pkg = JSON.parse(await readFile(join(pkgDir, 'package.json'), 'utf8'));
  const server = await staticServer(pkgDir, portableDir, page(browserEntry(pkg)));
  const browser = await launchChromium();
  try {
    const tab = await browser.newPage();
    const errors = [];
    tab.on('pageerror', (error) => errors.push(String(error.stack ?? error)));
    // Failed loads are the protocol's business (a 405 for the optional GET stream), not errors.
    tab.on('console', (m) => m.type() === 'error' && !/^Failed to load resource/.test(m.text()) && errors.push(`console.error: ${m.text()}`));
    await tab.goto(`http://localhost:${server.address().port}/`);
    await tab.waitForFunction(() => window.runSuite && window.benchMockRun, null, { timeout: 60_000 });
    if (bench) return { bench: await tab.evaluate((rounds) => window.benchMockRun(rounds), bench), passed: [], failed: [] };
    const result = await tab.evaluate((suiteEnv) => window.runSuite(suiteEnv), env);
    if (errors.length) result.failed.push({ name: '(page errors)', error: errors.join('\n') });
    return result;
  } finally {
    await browser.close();
    server.close();
  }
}
