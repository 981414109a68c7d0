// Model backends (and the MCP HTTP transport) against hostile loopback servers: a redirect to
// another origin (two ports are two origins) never carries a credential header, an endless
// stream stops at maxAnswerBytes, pings stop at maxAnswerMs, and a key quoted back in a
// streamed error is scrubbed.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { before, test } from 'node:test';
import { anthropic, createAgent, httpTransport, init, openaiCompatible } from 'agentwire';
import { eventually, recordingServer } from './http-helpers.mjs';

const T = { timeout: 30_000 };
/** A key with no well-known prefix: only scrubbing by value hides it. */
const KEY = 'plainkey7Q2x9Lm4Vb8Nz3Wc';

/** A loopback server calling `handle(req, res, body)`; resolves to `{ origin, requests, stop() }`. */
async function server(handle) {
  const requests = [];
  const sockets = new Set();
  const http = createServer(async (req, res) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const body = Buffer.concat(chunks).toString('utf8');
    requests.push({ method: req.method, url: req.url, headers: req.headers, body });
    handle(req, res, body);
  });
  http.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${http.address().port}`,
    requests,
    async stop() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}

const OPENAI_ANSWER = { choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }] };
const ANTHROPIC_ANSWER = { type: 'message', content: [{ type: 'text', text: 'hi' }], stop_reason: 'end_turn', usage: { input_tokens: 1, output_tokens: 1 } };

const PROVIDERS = [
  { name: 'openaiCompatible', make: (o) => openaiCompatible({ model: 'm', apiKey: KEY, ...o }), answer: OPENAI_ANSWER, path: '/v1/chat/completions', label: 'OpenAI-compatible' },
  { name: 'anthropic', make: (o) => anthropic({ model: 'claude-x', apiKey: KEY, ...o }), answer: ANTHROPIC_ANSWER, path: '/v1/messages', label: 'Anthropic Messages' },
];

// complete() is called directly here, outside an agent: the runtime module must be loaded.
before(() => init());

const REQUEST = { system: 's', messages: [{ role: 'user', content: 'hello' }], tools: [] };

/** The credential headers a request carried. */
function credentials(headers) {
  return Object.keys(headers).filter((h) => h === 'authorization' || h === 'x-api-key' || h === 'api-key' || h.startsWith('anthropic-') || h === 'x-custom-secret');
}

for (const provider of PROVIDERS) {
  for (const status of [307, 302, 308, 301, 303]) {
    test(`${provider.name}: a ${status} to another origin is refused and carries no key there`, T, async () => {
      const elsewhere = await server((req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(provider.answer)));
      const origin = await server((req, res) => res.writeHead(status, { location: `${elsewhere.origin}/v1/steal` }).end());
      try {
        const model = provider.make({ baseURL: `${origin.origin}/v1`, stream: false, retries: 0, headers: { 'x-custom-secret': 's3' } });
        await assert.rejects(model.complete(REQUEST), (error) => {
          assert.match(error.message, /redirected to another origin/);
          assert.ok(error.message.includes(elsewhere.origin), error.message);
          assert.ok(!error.message.includes(KEY), error.message);
          return true;
        });
        assert.equal(origin.requests.length, 1);
        assert.deepEqual(elsewhere.requests.flatMap((r) => credentials(r.headers)), []);
      } finally {
        await origin.stop();
        await elsewhere.stop();
      }
    });
  }

  test(`${provider.name}: a redirect within the origin is followed with the key`, T, async () => {
    const origin = await server((req, res) => {
      if (req.url.startsWith('/v2/')) res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(provider.answer));
      else res.writeHead(307, { location: `/v2${provider.path}` }).end();
    });
    try {
      const answer = await provider.make({ baseURL: `${origin.origin}/v1`, stream: false, retries: 0 }).complete(REQUEST);
      assert.equal(answer.text, 'hi');
      assert.equal(origin.requests.length, 2);
      assert.ok(JSON.stringify(origin.requests[1].headers).includes(KEY), 'the same server gets the key');
      assert.equal(origin.requests[1].method, 'POST');
    } finally {
      await origin.stop();
    }
  });

  test(`${provider.name}: an endless stream stops at maxAnswerBytes with an error naming the provider`, T, async () => {
    const opening =
      provider.name === 'anthropic'
        ? 'event: message_start\ndata: {"type":"message_start","message":{}}\n\nevent: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n'
        : '';
    const delta =
      provider.name === 'anthropic'
        ? 'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"aaaaaaaaaaaaaaaa"}}\n\n'
        : 'data: {"choices":[{"index":0,"delta":{"content":"aaaaaaaaaaaaaaaa"}}]}\n\n';
    const flood = await server((req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(opening);
      const pump = () => {
        while (res.write(delta.repeat(64)));
        if (!res.destroyed) res.once('drain', pump);
      };
      res.on('close', () => res.removeAllListeners('drain'));
      pump();
    });
    try {
      let text = 0;
      const model = provider.make({ baseURL: `${flood.origin}/v1`, retries: 0, maxAnswerBytes: 256 * 1024 });
      await assert.rejects(model.complete(REQUEST, { onText: (t) => (text += t.length) }), (error) => {
        assert.match(error.message, new RegExp(`the ${provider.label} answer`));
        assert.match(error.message, /size limit of 262144 bytes/);
        assert.match(error.message, /maxAnswerBytes/);
        return true;
      });
      assert.ok(text <= 256 * 1024, `${text}`);
    } finally {
      await flood.stop();
    }
  });

  test(`${provider.name}: pings for ever stop at maxAnswerMs`, T, async () => {
    const ping = provider.name === 'anthropic' ? 'event: ping\ndata: {"type":"ping"}\n\n' : ': keep-alive\n\n';
    const timers = [];
    const pinger = await server((req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (provider.name === 'anthropic') res.write('event: message_start\ndata: {"type":"message_start","message":{}}\n\n');
      timers.push(setInterval(() => res.write(ping), 20));
    });
    try {
      const started = performance.now();
      const model = provider.make({ baseURL: `${pinger.origin}/v1`, retries: 0, maxAnswerMs: 600 });
      await assert.rejects(model.complete(REQUEST), (error) => {
        assert.match(error.message, new RegExp(`the ${provider.label} answer`));
        assert.match(error.message, /still arriving after 600 ms/);
        assert.match(error.message, /maxAnswerMs/);
        return true;
      });
      const ms = performance.now() - started;
      assert.ok(ms >= 590 && ms < 5_000, `${ms}`);
    } finally {
      timers.forEach(clearInterval);
      await pinger.stop();
    }
  });

  test(`${provider.name}: a key quoted in a streamed error event is scrubbed`, T, async () => {
    const body =
      provider.name === 'anthropic'
        ? `event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"key ${KEY} overloaded"}}\n\n`
        : `data: {"error":{"message":"bad key ${KEY} for you","type":"auth"}}\n\n`;
    const leaky = await server((req, res) => res.writeHead(200, { 'content-type': 'text/event-stream' }).end(body));
    try {
      const model = provider.make({ baseURL: `${leaky.origin}/v1`, retries: 0 });
      await assert.rejects(model.complete(REQUEST), (error) => {
        assert.ok(!error.message.includes(KEY), error.message);
        assert.match(error.message, /\[API key\]/);
        return true;
      });
      // And through an agent run, as its error event says it.
      const agent = await createAgent({ model });
      const events = [];
      try {
        await agent.run('hello', { onEvent: (e) => events.push(e) }).catch(() => {});
      } finally {
        agent.close();
      }
      const shown = JSON.stringify(events);
      assert.ok(shown.includes('[API key]'), shown);
      assert.ok(!shown.includes(KEY), shown);
    } finally {
      await leaky.stop();
    }
  });
}

test('maxAnswerBytes and maxAnswerMs must be whole numbers of at least 1', () => {
  for (const make of [openaiCompatible, anthropic]) {
    for (const bad of [0, -1, 1.5, '10']) {
      assert.throws(() => make({ baseURL: 'http://127.0.0.1:1', model: 'm', maxAnswerBytes: bad }), /"maxAnswerBytes" must be a whole number of at least 1/);
      assert.throws(() => make({ baseURL: 'http://127.0.0.1:1', model: 'm', maxAnswerMs: bad }), /"maxAnswerMs" must be a whole number of at least 1/);
    }
  }
});

test('httpTransport: configured headers never follow a redirect to another origin; the request goes on without them', T, async () => {
  const target = await recordingServer();
  const origin = await server((req, res) => res.writeHead(307, { location: target.url }).end());
  const agent = await createAgent({
    servers: { moved: httpTransport(`${origin.origin}/mcp`, { headers: { Authorization: 'Bearer t0ken', 'X-Api-Key': 'k3y' } }) },
  });
  try {
    assert.ok(origin.requests.length >= 1);
    assert.equal(origin.requests[0].headers.authorization, 'Bearer t0ken', 'the named server gets its headers');
    assert.equal(origin.requests[0].headers['x-api-key'], 'k3y');
    // The opening probe went on to the other origin (307 keeps the method and body), bare.
    await eventually(() => target.requests.length >= 1, 5_000, 'a request at the other origin');
    assert.equal(target.requests[0].body?.method, 'server/discover');
    for (const request of target.requests) {
      assert.equal(request.headers.authorization, undefined, request.method);
      assert.equal(request.headers['x-api-key'], undefined, request.method);
    }
  } finally {
    agent.close();
    await origin.stop();
    await target.stop();
  }
});
