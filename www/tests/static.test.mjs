// The page needs no dev server: it works from python3's plain http.server, from serve.mjs and
// from scripts/serve-www. Also measures what the page loads (raw and gzipped) for docs/figures.md.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { freePort, lastAnswer, launch, openPage, RESULTS, serveWww, startCommand, stop, toolCalls, WWW } from './helpers.mjs';

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

/** A raw GET (the path is sent exactly as given, unlike fetch, which normalises "..").  */
function rawGet(url, path, method = 'GET') {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = request({ host: u.hostname, port: u.port, path, method }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode, type: res.headers['content-type'] }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function runGithubExample(url) {
  const { context, page, errors } = await openPage(browser, url);
  try {
    await page.locator('.example', { hasText: '查看 vercel/ai 的 issues' }).click();
    await page.locator('.msg.assistant:not(.pending)').waitFor({ timeout: 30_000 });
    assert.equal(await toolCalls(page, 'mcp__github__list_issues').locator('.call-args').innerText(), '{"owner":"vercel","repo":"ai"}');
    assert.match(await lastAnswer(page), /vercel\/ai/);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
}

describe('static serving', () => {
  test('works from python3 -m http.server (a plain static server)', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/`;
    const child = await startCommand('python3', ['-m', 'http.server', String(port), '--bind', '127.0.0.1', '--directory', WWW], url);
    try {
      await runGithubExample(url);
    } finally {
      await stop(child);
    }
  });

  test('serve.mjs: loopback only, MIME types, no way out of www/', async () => {
    const { server, url } = await serveWww();
    try {
      assert.equal(server.address().address, '127.0.0.1');
      const types = {
        '/': 'text/html; charset=utf-8',
        '/style.css': 'text/css; charset=utf-8',
        '/src/main.js': 'text/javascript; charset=utf-8',
        '/vendor/agentwire/agentwire_bg.wasm': 'application/wasm',
        '/vendor/agentwire/agentwire_mocks_bg.wasm': 'application/wasm',
      };
      for (const [path, type] of Object.entries(types)) {
        const r = await rawGet(url, path);
        assert.deepEqual(r, { status: 200, type }, path);
      }
      for (const path of ['/../package.json', '/..%2fpackage.json', '/%2e%2e/%2e%2e/Cargo.toml', '/nope.js', '/%zz']) {
        assert.equal((await rawGet(url, path)).status, 404, path);
      }
      assert.equal((await rawGet(url, '/', 'POST')).status, 405);
    } finally {
      server.close();
    }
  });

  test('scripts/serve-www serves the page on the given port, bound to 127.0.0.1', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/`;
    // --no-build: `npm test` runs after scripts/build-pkg; the script's build step is that one.
    const child = await startCommand(join(WWW, '..', 'scripts', 'serve-www'), ['--no-build', String(port)], url);
    try {
      const r = await rawGet(url, '/vendor/agentwire/agentwire_bg.wasm');
      assert.deepEqual(r, { status: 200, type: 'application/wasm' });
      await runGithubExample(url);
    } finally {
      await stop(child);
    }
    const bad = spawn(join(WWW, '..', 'scripts', 'serve-www'), ['--no-build', 'eighty'], { stdio: 'pipe' });
    let err = '';
    bad.stderr.on('data', (d) => (err += d));
    const code = await new Promise((resolve) => bad.on('exit', resolve));
    assert.notEqual(code, 0);
    assert.match(err, /port must be a number/);
  });

  test('page weight: everything the page loads, raw and gzipped', async () => {
    const { server, url } = await serveWww();
    try {
      const context = await browser.newContext();
      const page = await context.newPage();
      const loaded = [];
      page.on('response', async (response) => {
        if (!response.url().startsWith(url)) return;
        loaded.push(response.body().then((body) => ({ path: new URL(response.url()).pathname, body })));
      });
      await page.goto(url);
      await page.locator('#status[data-state="ready"]').waitFor();
      const files = (await Promise.all(loaded))
        .map(({ path, body }) => ({ path, raw: body.length, gzip: gzipSync(body, { level: 9 }).length }))
        .sort((a, b) => b.raw - a.raw);
      await context.close();

      const total = files.reduce((t, f) => ({ raw: t.raw + f.raw, gzip: t.gzip + f.gzip }), { raw: 0, gzip: 0 });
      const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
      const table = [
        '| file | raw | gzip -9 |',
        '|---|---:|---:|',
        ...files.map((f) => `| \`${f.path}\` | ${kb(f.raw)} | ${kb(f.gzip)} |`),
        `| **total (${files.length} files)** | **${kb(total.raw)}** | **${kb(total.gzip)}** |`,
      ].join('\n');
      writeFileSync(join(RESULTS, 'sizes.json'), JSON.stringify({ files, total }, null, 2));
      writeFileSync(join(RESULTS, 'sizes.md'), `${table}\n`);
      console.log(`\nWhat the page loads:\n${table}\n`);

      // Everything the page needs, and nothing twice (the preloads are used, not refetched).
      const paths = files.map((f) => f.path);
      const needs = ['/', '/style.css', '/src/main.js', '/vendor/agentwire/index.js', '/vendor/agentwire/agentwire_bg.wasm'];
      // The page uses the mock GitHub server, so it loads the mocks module as well.
      needs.push('/vendor/agentwire/agentwire_mocks.js', '/vendor/agentwire/agentwire_mocks_bg.wasm');
      for (const need of needs) {
        assert.ok(paths.includes(need), `the page should load ${need}: ${paths}`);
      }
      assert.equal(new Set(paths).size, paths.length, `a file was fetched twice: ${paths}`);
      // A budget, so the page stays light: the wasm core dominates.
      assert.ok(total.gzip < 600 * 1024, `the page weighs ${kb(total.gzip)} gzipped`);
    } finally {
      server.close();
    }
  });
});
