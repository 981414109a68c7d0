// httpTransport in a browser (headless Chromium): a page on one origin talks to
// server-everything's Streamable HTTP endpoint on another, which allows it by CORS
// (it exposes Mcp-Session-Id, so the session survives the cross-origin reads).
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, extname, join, normalize } from 'node:path';
import { test } from 'node:test';
import { eventually, startEverythingHttp } from './http-helpers.mjs';
import { launchChromium } from '../portable/chromium.mjs';

const TYPES = { '.js': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json' };

const page = (mcpUrl) => `<!doctype html><meta charset="utf-8"><script type="module">
import { createAgent, httpTransport } from '/agentwire/index.js';
try {
  const agent = await createAgent({ servers: { everything: httpTransport(${JSON.stringify(mcpUrl)}) } });
  const [status] = agent.servers();
  const echo = await agent.callTool('mcp__everything__echo', { message: 'from the page' });
  const sum = await agent.callTool('mcp__everything__get-sum', { a: 20, b: 22 });
  window.result = { status: status.status, error: status.error, tools: agent.tools().length, echo: echo.text, sum: sum.text };
  agent.close();
} catch (e) {
  window.result = { thrown: String(e && e.stack || e) };
}
</script>`;

test('httpTransport from a browser page to a cross-origin MCP server (CORS)', { timeout: 120_000 }, async () => {
  const pkgDir = dirname(createRequire(import.meta.url).resolve('agentwire/package.json'));
  const everything = await startEverythingHttp();
  const server = createServer(async (req, res) => {
    const path = new URL(req.url, 'http://x').pathname;
    if (path === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return res.end(page(everything.url));
    }
    try {
      const file = normalize(path).replace(/^\/agentwire\//, '');
      const data = await readFile(join(pkgDir, file));
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
      res.end(data);
    } catch {
      res.writeHead(404).end();
    }
  });
  // "localhost" for the page and 127.0.0.1 for the MCP server: two origins.
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const browser = await launchChromium();
  try {
    const tab = await browser.newPage();
    const errors = [];
    tab.on('pageerror', (error) => errors.push(error.message));
    await tab.goto(`http://localhost:${server.address().port}/`);
    await tab.waitForFunction(() => window.result, null, { timeout: 60_000 });
    const result = await tab.evaluate(() => window.result);
    assert.equal(result.thrown, undefined, result.thrown);
    assert.equal(result.status, 'connected', result.error);
    assert.ok(result.tools > 5);
    assert.equal(result.echo, 'Echo: from the page');
    assert.match(result.sum, /\b42\b/);
    assert.deepEqual(errors, []);
    // The page's close() sent a cross-origin DELETE for the session.
    await eventually(() => everything.stdout().includes('Received session termination request'), 5_000, 'the DELETE');
  } finally {
    await browser.close();
    server.close();
    await everything.stop();
  }
});
