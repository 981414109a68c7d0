// Settings: an OpenAI-compatible endpoint used from the page with fetch. A scripted endpoint on
// loopback plays the model: it asks for the mock GitHub server's create_issue (risk write, so
// the page asks first), then answers from the tool result. The key must reach the endpoint and
// nothing else: not the console, not localStorage, not the DOM.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { lastAnswer, launch, openPage, RESULTS, serveWww, toolCalls, waitForRunEnd } from './helpers.mjs';

const KEY = 'sk-test-Zq8XvN3pL0secret';

let browser;
let server;
let url;
let endpoint;

/** A scripted chat-completions endpoint: records requests, answers as `script(body)` says. */
async function startEndpoint() {
  const requests = [];
  let script = () => ({ text: 'hello' });
  const cors = {
    'access-control-allow-origin': '*',
    'access-control-allow-headers': 'authorization, content-type',
    'access-control-allow-methods': 'POST, OPTIONS',
  };
  const srv = createServer((req, res) => {
    if (req.method === 'OPTIONS') return res.writeHead(204, cors).end();
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const body = JSON.parse(raw);
      requests.push({ path: req.url, authorization: req.headers.authorization, body });
      const reply = script(body);
      if (reply.status) {
        res.writeHead(reply.status, { ...cors, 'content-type': 'application/json' });
        return res.end(JSON.stringify({ error: { message: reply.error } }));
      }
      const toolCalls = reply.call
        ? [{ id: 'call_1', type: 'function', function: { name: reply.call.name, arguments: JSON.stringify(reply.call.args) } }]
        : undefined;
      if (!body.stream) {
        res.writeHead(200, { ...cors, 'content-type': 'application/json' });
        return res.end(JSON.stringify({
          choices: [{ index: 0, finish_reason: toolCalls ? 'tool_calls' : 'stop', message: { role: 'assistant', content: reply.text ?? null, tool_calls: toolCalls } }],
        }));
      }
      // Server-sent events, in small pieces, as real endpoints stream.
      res.writeHead(200, { ...cors, 'content-type': 'text/event-stream' });
      const send = (delta, finish = null) => res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`);
      if (reply.reasoning) for (const piece of reply.reasoning.match(/.{1,7}/gsu)) send({ reasoning_content: piece });
      if (reply.text) for (const piece of reply.text.match(/.{1,7}/gsu)) send({ content: piece });
      if (toolCalls) {
        const [c] = toolCalls;
        send({ tool_calls: [{ index: 0, id: c.id, type: 'function', function: { name: c.function.name, arguments: '' } }] });
        for (const piece of c.function.arguments.match(/.{1,5}/gsu)) send({ tool_calls: [{ index: 0, function: { arguments: piece } }] });
      }
      send({}, toolCalls ? 'tool_calls' : 'stop');
      res.end('data: [DONE]\n\n');
    });
  });
  await new Promise((resolve) => srv.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${srv.address().port}/v1`,
    requests,
    setScript: (fn) => (script = fn),
    close: () => srv.close(),
  };
}

before(async () => {
  ({ server, url } = await serveWww());
  endpoint = await startEndpoint();
  browser = await launch();
});
after(async () => {
  await browser?.close();
  server?.close();
  endpoint?.close();
});

async function configure(page, { stream = true, remember = false, key = KEY } = {}) {
  await page.locator('#model-button').click();
  await page.locator('#settings input[name="kind"][value="openai"]').check();
  await page.locator('#settings input[name="baseURL"]').fill(endpoint.url);
  await page.locator('#settings input[name="apiKey"]').fill(key);
  await page.locator('#settings input[name="model"]').fill('scripted-1');
  await page.locator('#settings input[name="stream"]').setChecked(stream);
  await page.locator('#settings input[name="remember"]').setChecked(remember);
  await page.locator('#settings-save').click();
  await page.locator('#settings[open]').waitFor({ state: 'detached' }).catch(() => {});
  assert.equal(await page.locator('#settings').evaluate((d) => d.open), false, 'the dialog closes on save');
}

/** Nowhere the key may be: console, localStorage, the page's HTML and text. */
async function assertKeyNotLeaked(page, consoleLines) {
  assert.ok(!consoleLines.join('\n').includes(KEY), 'the key was logged to the console');
  const where = await page.evaluate((key) => ({
    localStorage: JSON.stringify({ ...localStorage }).includes(key),
    html: document.documentElement.outerHTML.includes(key),
    text: document.body.innerText.includes(key),
  }), KEY);
  assert.deepEqual(where, { localStorage: false, html: false, text: false });
}

describe('settings: an OpenAI-compatible endpoint', () => {
  test('streams a run that calls an MCP write tool after approval; the key goes only to the endpoint', async () => {
    const { context, page, errors, consoleLines } = await openPage(browser, url);
    try {
      endpoint.requests.length = 0;
      endpoint.setScript((body) => {
        const last = body.messages.at(-1);
        if (last.role === 'user') {
          return { text: 'Let me file that.', call: { name: 'mcp__github__create_issue', args: { owner: 'vercel', repo: 'ai', title: 'Docs typo' } } };
        }
        const created = JSON.parse(last.content);
        return { text: `Done: opened issue #${created.number} "${created.title}".` };
      });
      await configure(page);
      assert.equal(await page.locator('#model-label').innerText(), `scripted-1 @ ${new URL(endpoint.url).host}`);

      await page.locator('#prompt').fill('file an issue about the docs typo');
      await page.locator('#prompt').press('Enter');
      await page.locator('#approval[open]').waitFor({ timeout: 30_000 });
      assert.equal(await page.locator('#approval-tool').innerText(), 'mcp__github__create_issue');
      assert.equal(await page.locator('#approval-risk').innerText(), 'write');
      await page.locator('#approval-yes').click();
      await waitForRunEnd(page, 1);

      // What the endpoint saw: the key, the model, the page's and the server's tools, the result.
      assert.equal(endpoint.requests.length, 2);
      for (const r of endpoint.requests) {
        assert.equal(r.path, '/v1/chat/completions');
        assert.equal(r.authorization, `Bearer ${KEY}`);
        assert.equal(r.body.model, 'scripted-1');
        assert.equal(r.body.stream, true);
      }
      const offered = endpoint.requests[0].body.tools.map((t) => t.function.name);
      for (const name of ['calculator', 'get_weather', 'mcp__github__list_issues', 'mcp__github__create_issue']) {
        assert.ok(offered.includes(name), `the model should be offered ${name}: ${offered}`);
      }
      const toolMessage = endpoint.requests[1].body.messages.at(-1);
      assert.equal(toolMessage.role, 'tool');
      const created = JSON.parse(toolMessage.content);
      assert.equal(created.title, 'Docs typo');

      const call = toolCalls(page, 'mcp__github__create_issue');
      assert.equal(await call.getAttribute('data-state'), 'ok');
      assert.equal(await call.locator('.risk').innerText(), 'write');
      assert.equal(await lastAnswer(page), `Done: opened issue #${created.number} "Docs typo".`);
      assert.match(await page.locator('#timeline .ev.text').first().innerText(), /Let me file that\./);
      await page.screenshot({ path: join(RESULTS, 'endpoint-run.png') });

      await assertKeyNotLeaked(page, consoleLines);
      assert.equal(await page.evaluate(() => sessionStorage.length), 0, 'not remembered unless asked');
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });

  test("a model's streamed reasoning is one 'thinking' entry in the timeline, never in the answer", async () => {
    const { context, page, errors } = await openPage(browser, url);
    try {
      const reasoning = 'The user greets me. A short friendly reply will do.';
      endpoint.setScript(() => ({ reasoning, text: 'Hello there!' }));
      await configure(page);
      await page.locator('#prompt').fill('hi');
      await page.locator('#prompt').press('Enter');
      await waitForRunEnd(page, 1);
      assert.equal(await lastAnswer(page), 'Hello there!');
      const thinking = page.locator('#timeline .ev.thinking');
      assert.equal(await thinking.count(), 1, 'the pieces grow one entry');
      assert.equal(await thinking.locator('.thinking-text').innerText(), reasoning);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });

  test('"remember in this tab" keeps the settings in session storage only, across a reload', async () => {
    const { context, page, errors, consoleLines } = await openPage(browser, url);
    try {
      endpoint.setScript(() => ({ text: 'plain answer' }));
      await configure(page, { stream: false, remember: true });
      const stored = await page.evaluate(() => Object.keys(sessionStorage).map((k) => sessionStorage.getItem(k)).join());
      assert.ok(stored.includes(KEY), 'the key is in session storage when asked to remember');
      await page.reload();
      await page.locator('#status[data-state="ready"]').waitFor();
      assert.match(await page.locator('#model-label').innerText(), /^scripted-1 @ /);
      endpoint.requests.length = 0;
      await page.locator('#prompt').fill('hi');
      await page.locator('#prompt').press('Enter');
      await waitForRunEnd(page, 1);
      assert.equal(await lastAnswer(page), 'plain answer');
      assert.equal(endpoint.requests[0].authorization, `Bearer ${KEY}`);
      assert.equal(endpoint.requests[0].body.stream, false);
      await assertKeyNotLeaked(page, consoleLines);

      // Back to the mock model: the remembered settings are dropped.
      await page.locator('#model-button').click();
      await page.locator('#settings input[name="kind"][value="mock"]').check();
      await page.locator('#settings-save').click();
      assert.equal(await page.locator('#model-label').innerText(), 'Mock model');
      assert.equal(await page.evaluate(() => sessionStorage.length), 0);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });

  test('an endpoint error is shown with the key masked, and bad settings are refused', async () => {
    const { context, page, errors, consoleLines } = await openPage(browser, url);
    try {
      // Some APIs echo the key they refused; the page must not show it.
      endpoint.setScript(() => ({ status: 401, error: `Incorrect API key provided: ${KEY}` }));
      await configure(page, { stream: false });
      await page.locator('#prompt').fill('hi');
      await page.locator('#prompt').press('Enter');
      const bubble = await waitForRunEnd(page, 1);
      assert.equal(await bubble.evaluate((b) => b.classList.contains('error')), true);
      const shown = await bubble.innerText();
      assert.match(shown, /Incorrect API key provided: \[API key\]/);
      assert.match(shown, /401/);
      assert.ok(await page.locator('#timeline .ev.error').count(), 'the timeline shows the error');
      await assertKeyNotLeaked(page, consoleLines);

      // A base URL that is not http(s) is refused with a message; the model stays as it was.
      await page.locator('#model-button').click();
      await page.locator('#settings input[name="baseURL"]').fill('ftp://example.com/v1');
      await page.locator('#settings-save').click();
      assert.match(await page.locator('#settings-error').innerText(), /https:\/\//);
      assert.equal(await page.locator('#settings').evaluate((d) => d.open), true);
      await page.keyboard.press('Escape');

      // The browser itself reports the failed request (HTTP 401) on the console; nothing else.
      assert.deepEqual(errors.filter((e) => !/Failed to load resource: the server responded with a status of 401/.test(e)), []);
    } finally {
      await context.close();
    }
  });
});
