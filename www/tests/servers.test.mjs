// Remote MCP servers from the page: `@modelcontextprotocol/server-everything` in its Streamable
// HTTP mode (a real server from npm, on loopback, another origin than the page, so CORS is
// real), added with the "+ MCP server" dialog, used in a run, then removed. A server that cannot
// be reached is reported in the dialog and changes nothing else.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { freePort, lastAnswer, launch, openPage, RESULTS, sendPrompt, serveWww, startCommand, stop, toolCalls, WWW } from './helpers.mjs';

let browser;
let server;
let url;
let everything;
let model;

/** server-everything's entry point, installed by scripts/npm-fixtures. */
function everythingEntry() {
  const cache = process.env.AGENTWIRE_NPM_CACHE ?? join(WWW, '..', 'target', 'npm-fixtures');
  const entry = join(cache, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
  if (!existsSync(entry)) throw new Error(`${entry} is missing: run scripts/npm-fixtures (scripts/test does)`);
  return entry;
}

/** Starts server-everything over Streamable HTTP on a free port; resolves once it listens. */
async function startEverything() {
  const port = await freePort();
  const endpoint = `http://127.0.0.1:${port}/mcp`;
  const child = await startCommand(process.execPath, [everythingEntry(), 'streamableHttp'], endpoint, {
    env: { ...process.env, PORT: String(port) },
    ready: () => true, // any HTTP answer (a GET without a session is refused) means it listens
  });
  return { endpoint, stop: () => stop(child) };
}

/** A chat-completions endpoint that calls everything's echo once, then answers from it. */
async function startModel() {
  const cors = {
    'access-control-allow-origin': '*',
    'access-control-allow-headers': 'authorization, content-type',
    'access-control-allow-methods': 'POST, OPTIONS',
  };
  const requests = [];
  const srv = createServer((req, res) => {
    if (req.method === 'OPTIONS') return res.writeHead(204, cors).end();
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const body = JSON.parse(raw);
      requests.push(body);
      const last = body.messages.at(-1);
      const message = last.role === 'tool'
        ? { role: 'assistant', content: `The server said: ${last.content}` }
        : {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'mcp__everything__echo', arguments: JSON.stringify({ message: 'hi from the page' }) } }],
          };
      res.writeHead(200, { ...cors, 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'x', object: 'chat.completion', choices: [{ index: 0, message, finish_reason: last.role === 'tool' ? 'stop' : 'tool_calls' }] }));
    });
  });
  await new Promise((resolve) => srv.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${srv.address().port}/v1`, requests, close: () => srv.close() };
}

before(async () => {
  ({ server, url } = await serveWww());
  [everything, model] = await Promise.all([startEverything(), startModel()]);
  browser = await launch();
});
after(async () => {
  await browser?.close();
  server?.close();
  await everything?.stop();
  model?.close();
});

async function addServer(page, { url: serverUrl, name }) {
  await page.locator('#add-server-button').click();
  await page.locator('#add-server input[name="url"]').fill(serverUrl);
  await page.locator('#add-server input[name="name"]').fill(name);
  await page.locator('#add-server-connect').click();
}

describe('remote MCP servers (Streamable HTTP from the page)', () => {
  test('server-everything is added, used in a run, and removed', async () => {
    const { context, page, errors } = await openPage(browser, url);
    try {
      await addServer(page, { url: everything.endpoint, name: 'everything' });
      const group = page.locator('.tool-group[data-group="mcp:everything"]');
      await group.waitFor({ timeout: 20_000 });
      assert.equal(await page.locator('#add-server').evaluate((d) => d.open), false, 'the dialog closes once connected');
      assert.equal(await group.locator('.tool[data-tool="mcp__everything__echo"]').count(), 1, 'echo is listed');
      // The server's own name and version, from its initialize answer.
      assert.match(await group.locator('h3').innerText(), /mcp-servers\/everything \d+\.\d+/);
      const github = await page.locator('.tool-group[data-group="mcp:github"] .tool').count();
      assert.ok(github > 0, 'the mock GitHub server is still there');

      // A run whose model (an OpenAI-compatible endpoint) calls the remote tool.
      await page.locator('#model-button').click();
      await page.locator('#settings input[name="kind"][value="openai"]').check();
      await page.locator('#settings input[name="baseURL"]').fill(model.url);
      await page.locator('#settings input[name="model"]').fill('scripted');
      await page.locator('#settings input[name="stream"]').setChecked(false);
      await page.locator('#settings-save').click();
      await sendPrompt(page, 'Say hi through the everything server');
      assert.match(await lastAnswer(page), /Echo: hi from the page/);
      assert.equal(await toolCalls(page, 'mcp__everything__echo').count(), 1);
      const offered = model.requests[0].tools.map((t) => t.function.name);
      assert.ok(offered.includes('mcp__everything__echo'), `the model is offered the remote tools: ${offered}`);
      await page.screenshot({ path: join(RESULTS, 'remote-server.png') });

      await group.locator('button[data-remove="everything"]').click();
      await group.waitFor({ state: 'detached' });
      assert.equal(await page.locator('.tool-group[data-group="mcp:github"] .tool').count(), github);
      // server-everything speaks the legacy era: it refuses the `server/discover` probe with an
      // HTTP 400, the revision's fallback signal, and Chromium logs every non-2xx fetch. That one
      // line is expected; anything else is an error.
      const probe = 'console.error: Failed to load resource: the server responded with a status of 400 (Bad Request)';
      assert.deepEqual(errors.filter((e) => e !== probe), []);
      assert.ok(errors.filter((e) => e === probe).length <= 1, `one probe, refused once: ${errors}`);
    } finally {
      await context.close();
    }
  });

  test('a bad URL or an unreachable server is reported in the dialog; nothing else changes', async () => {
    const { context, page, errors } = await openPage(browser, url);
    try {
      const before = await page.locator('.tool').count();
      await addServer(page, { url: 'ftp://example.com/mcp', name: 'x' });
      assert.match(await page.locator('#add-server-error').innerText(), /https:\/\/ or http:\/\//);

      const closedPort = await freePort();
      await page.locator('#add-server input[name="url"]').fill(`http://127.0.0.1:${closedPort}/mcp`);
      await page.locator('#add-server input[name="name"]').fill('nowhere');
      await page.locator('#add-server-connect').click();
      await page.locator('#add-server-error', { hasText: 'Could not connect nowhere' }).waitFor({ timeout: 20_000 });
      assert.equal(await page.locator('#add-server').evaluate((d) => d.open), true, 'the dialog stays open');
      assert.equal(await page.locator('.tool-group[data-group="mcp:nowhere"]').count(), 0);
      assert.equal(await page.locator('.tool').count(), before);
      assert.deepEqual(await page.evaluate(() => document.querySelector('#status').dataset.state), 'ready');
      // Chromium logs the refused connection itself; nothing else may show up.
      assert.deepEqual(errors.filter((e) => !e.includes('ERR_CONNECTION_REFUSED')), []);
    } finally {
      await context.close();
    }
  });
});
