// Models: JS objects in the core's request/response shape, and openaiCompatible over fetch.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { test } from 'node:test';
import { createAgent, openaiCodec, openaiCompatible } from 'agentwire';
import { eventLog } from './helpers.mjs';

test('a JS model gets the core request shape and its tool calls are executed', async () => {
  const requests = [];
  const model = {
    async complete(request) {
      requests.push(structuredClone(request));
      if (request.messages.at(-1).role === 'tool') return { text: `issues: ${request.messages.at(-1).content.length} chars` };
      return { text: 'let me look', toolCalls: [{ id: 'c1', name: 'mcp__github__list_issues', arguments: '{"owner":"vercel","repo":"ai"}' }] };
    },
  };
  const agent = await createAgent({ model, systemPrompt: 'Be brief.' });
  try {
    const log = eventLog();
    const answer = await agent.run('what is open?', { onEvent: log.onEvent });
    assert.match(answer, /^issues: \d+ chars$/);
    assert.equal(requests.length, 2);
    assert.equal(requests[0].system, 'Be brief.');
    assert.deepEqual(requests[0].messages, [{ role: 'user', content: 'what is open?' }]);
    assert.ok(requests[0].tools.some((t) => t.name === 'mcp__github__list_issues' && t.inputSchema.type === 'object'));
    const [assistant, tool] = requests[1].messages.slice(1);
    assert.equal(assistant.role, 'assistant');
    assert.equal(assistant.content, 'let me look');
    assert.deepEqual(assistant.toolCalls[0].arguments, { owner: 'vercel', repo: 'ai' });
    assert.equal(tool.role, 'tool');
    assert.equal(tool.toolCallId, assistant.toolCalls[0].id);
    assert.equal(tool.isError, false);
    assert.deepEqual(log.types(), ['step_start', 'model_text', 'tool_start', 'tool_end', 'step_start', 'model_text', 'done']);

    // History carries into the next run.
    await agent.run('and closed ones?');
    assert.deepEqual(requests[2].messages.map((m) => m.role), ['user', 'assistant', 'tool', 'assistant', 'user']);
  } finally {
    agent.close();
  }
});

test('a model that throws or answers nonsense fails the run, not the agent', async () => {
  let mode = 'throw';
  const model = {
    complete: async () => {
      if (mode === 'throw') throw new Error('rate limited');
      if (mode === 'nonsense') return { toolCalls: 'many' };
      return { text: 'recovered' };
    },
  };
  const agent = await createAgent({ model, servers: {} });
  try {
    const log = eventLog();
    await assert.rejects(agent.run('hi', { onEvent: log.onEvent }), /rate limited/);
    assert.equal(log.types().at(-1), 'error');
    mode = 'nonsense';
    await assert.rejects(agent.run('hi'), /toolCalls/);
    mode = 'ok';
    assert.equal(await agent.run('hi'), 'recovered');
  } finally {
    agent.close();
  }
});

test('one run at a time', async () => {
  let release;
  const model = { complete: () => new Promise((r) => (release = () => r({ text: 'done' }))) };
  const agent = await createAgent({ model, servers: {} });
  try {
    const first = agent.run('one');
    await new Promise((r) => setTimeout(r, 10));
    await assert.rejects(agent.run('two'), /already active/);
    release();
    assert.equal(await first, 'done');
  } finally {
    agent.close();
  }
});

/** A local OpenAI-compatible server that answers from `script(body)`. */
async function fakeOpenAI(script) {
  const seen = [];
  const server = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    const parsed = JSON.parse(body);
    seen.push({ url: req.url, headers: req.headers, body: parsed });
    script(parsed, res, seen.length);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { seen, baseURL: `http://127.0.0.1:${server.address().port}/v1`, close: () => server.close() };
}

function sse(res, chunks) {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const c of chunks) res.write(`data: ${JSON.stringify(c)}\n\n`);
  res.end('data: [DONE]\n\n');
}

const delta = (d, finish = null) => ({ choices: [{ index: 0, delta: d, finish_reason: finish }] });

test('openaiCompatible: streamed tool call, then streamed text as text_delta events', async () => {
  const api = await fakeOpenAI((body, res, n) => {
    if (n === 1) {
      sse(res, [
        delta({ role: 'assistant', tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'mcp__github__list_issues', arguments: '{"owner":' } }] }),
        delta({ tool_calls: [{ index: 0, function: { arguments: '"vercel","repo":"ai"}' } }] }),
        delta({}, 'tool_calls'),
      ]);
    } else {
      sse(res, [delta({ content: 'There are ' }), delta({ content: 'five issues.' }), delta({}, 'stop')]);
    }
  });
  const agent = await createAgent({ model: openaiCompatible({ baseURL: api.baseURL, apiKey: 'sk-test', model: 'test-model' }) });
  try {
    const log = eventLog();
    const answer = await agent.run('issues of vercel/ai?', { onEvent: log.onEvent });
    assert.equal(answer, 'There are five issues.');
    assert.deepEqual(log.of('text_delta').map((e) => e.text), ['There are ', 'five issues.']);
    assert.equal(log.of('tool_start')[0].name, 'mcp__github__list_issues');
    assert.equal(api.seen[0].url, '/v1/chat/completions');
    assert.equal(api.seen[0].headers.authorization, 'Bearer sk-test');
    assert.equal(api.seen[0].body.model, 'test-model');
    assert.equal(api.seen[0].body.stream, true);
    assert.ok(api.seen[0].body.tools.some((t) => t.function.name === 'mcp__github__list_issues'));
    const toolMessage = api.seen[1].body.messages.find((m) => m.role === 'tool');
    assert.equal(toolMessage.tool_call_id, 'call_a');
  } finally {
    agent.close();
    api.close();
  }
});

test('openaiCompatible: non-streaming answers and API errors', async () => {
  const api = await fakeOpenAI((body, res, n) => {
    if (n === 1) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content: 'plain answer' }, finish_reason: 'stop' }] }));
    } else {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } }));
    }
  });
  const agent = await createAgent({ servers: {}, model: openaiCompatible({ baseURL: `${api.baseURL}/`, model: 'm', stream: false }) });
  try {
    assert.equal(await agent.run('hi'), 'plain answer');
    assert.equal(api.seen[0].body.stream, false);
    assert.equal(api.seen[0].headers.authorization, undefined);
    await assert.rejects(agent.run('again'), /Incorrect API key provided.*invalid_api_key.*HTTP 401/);
  } finally {
    agent.close();
    api.close();
  }
});

test('openaiCodec exposes the core codec', async () => {
  await createAgent({ servers: {} }).then((a) => a.close());
  const body = openaiCodec.encodeRequest(
    { system: 'S', messages: [{ role: 'user', content: 'hi' }], tools: [] },
    { model: 'm', stream: true, extra: { enable_thinking: false } },
  );
  assert.deepEqual(body.messages, [{ role: 'system', content: 'S' }, { role: 'user', content: 'hi' }]);
  assert.equal(body.enable_thinking, false);
  assert.equal(body.tools, undefined);

  const decoder = openaiCodec.createStreamDecoder();
  const text = 'data: {"choices":[{"index":0,"delta":{"content":"Hel"}}]}\n\ndata: {"choices":[{"index":0,"delta":{"content":"lo"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n';
  const bytes = new TextEncoder().encode(text);
  const deltas = [...bytes].flatMap((b) => decoder.push(new Uint8Array([b])));
  assert.deepEqual(deltas, [{ type: 'text', text: 'Hel' }, { type: 'text', text: 'lo' }]);
  assert.deepEqual(decoder.finish(), { text: 'Hello', toolCalls: [] });

  assert.throws(() => openaiCodec.decodeResponse('{"error":{"message":"quota exceeded"}}'), /quota exceeded/);
  assert.throws(() => openaiCodec.encodeRequest({ messages: [{ role: 'robot' }] }, { model: 'm' }), /messages\[0\]: unknown role "robot"/);
});

test('setModel swaps the model between runs; the history stays', async () => {
  const agent = await createAgent();
  try {
    await agent.run('查看 vercel/ai 的 issues');
    const seen = [];
    agent.setModel({ complete: async (request) => (seen.push(request.messages.length), { text: 'from JS' }) });
    assert.equal(await agent.run('thanks'), 'from JS');
    assert.deepEqual(seen, [5]);
    agent.setModel(); // back to the mock model
    assert.match(await agent.run('list issues in vercel/ai'), /#\d+/);
  } finally {
    agent.close();
  }
});
