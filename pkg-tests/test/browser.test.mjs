// The same package in a browser (headless Chromium): plain ES modules served over HTTP, the
// wasm fetched beside index.js, no bundler. Needs Chromium (CHROMIUM_PATH or /usr/bin/chromium)
// and playwright-core (AW_PLAYWRIGHT, set by ../run).
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, extname, join, normalize } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';

const TYPES = { '.js': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json' };

const PAGE = `<!doctype html><meta charset="utf-8"><script type="module">
import { createAgent, mockGithub, openaiCodec } from '/agentwire/index.js';
try {
  const agent = await createAgent();
  const events = [];
  const answer = await agent.run('查看 vercel/ai 的 issues', { onEvent: (e) => events.push(e.type) });
  const mock = mockGithub();
  const viaJs = await createAgent({ servers: { gh: { send: (l) => mock.send(l), onMessage: (c) => mock.onMessage(c) } } });
  viaJs.registerTool({ name: 'get_weather', risk: 'network', execute: ({ city }) => 'rain in ' + city });
  const asked = [];
  const weather = await viaJs.run('weather in Paris', { onApproval: (r) => asked.push(r.name) > 0 });
  const body = openaiCodec.encodeRequest({ system: '', messages: [{ role: 'user', content: 'hi' }], tools: [] }, { model: 'm' });
  let badArgument = null;
  try { viaJs.registerTool({ name: 'x', execute: 'nope' }); } catch (e) { badArgument = e.message; }
  window.result = { events, answer, weather, asked, servers: viaJs.servers().map((s) => s.status), body, badArgument };
  agent.close();
  viaJs.close();
} catch (e) {
  window.result = { error: String(e && e.stack || e) };
}
</script>`;

function chromiumPath() {
  for (const candidate of [process.env.CHROMIUM_PATH, '/usr/bin/chromium']) if (candidate) return candidate;
  throw new Error('no Chromium: set CHROMIUM_PATH');
}

test('the package runs in headless Chromium without a bundler', { timeout: 120_000 }, async () => {
  if (!process.env.AW_PLAYWRIGHT) throw new Error('AW_PLAYWRIGHT must point at playwright-core; run the tests with pkg-tests/run');
  const { chromium } = await import(pathToFileURL(join(process.env.AW_PLAYWRIGHT, 'index.mjs')).href);
  // The installed package, exactly as npm put it in node_modules.
  const pkgDir = dirname(createRequire(import.meta.url).resolve('agentwire/package.json'));
  const server = createServer(async (req, res) => {
    const path = new URL(req.url, 'http://x').pathname;
    if (path === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return res.end(PAGE);
    }
    const file = normalize(path).replace(/^\/agentwire\//, '');
    try {
      const data = await readFile(join(pkgDir, file));
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
      res.end(data);
    } catch {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const browser = await chromium.launch({
    executablePath: chromiumPath(),
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`http://127.0.0.1:${server.address().port}/`);
    await page.waitForFunction(() => window.result, null, { timeout: 60_000 });
    const result = await page.evaluate(() => window.result);
    assert.equal(result.error, undefined, result.error);
    assert.deepEqual(errors, []);
    assert.deepEqual(result.events, ['step_start', 'tool_start', 'tool_end', 'step_start', 'model_text', 'done']);
    assert.match(result.answer, /^vercel\/ai 的 issue（共 \d+ 个）/);
    assert.match(result.weather, /rain in Paris/);
    assert.deepEqual(result.asked, ['get_weather']);
    assert.deepEqual(result.servers, ['connected']);
    assert.equal(result.body.model, 'm');
    assert.match(result.badArgument, /"execute" must be a function, got a string "nope"/);
  } finally {
    await browser.close();
    server.close();
  }
});
