// openaiCompatible() against the local OpenAI-compatible replay server (the native tests'
// fixture, native-host/tests/fixtures/openai): full agent runs with streamed tool-call
// fragments, and the 401 / 429 / 5xx cases with their error texts.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createAgent, httpTransport, openaiCompatible } from 'agentwire';
import { eventLog } from './helpers.mjs';
import { startEverythingHttp } from './http-helpers.mjs';

const T = { timeout: 60_000 };
/** The replay server echoes this key in its 401 body, as OpenAI does; it must not reach us. */
const SECRET = 'sk-test-secret-key-123';

function fixtures() {
  const dir = process.env.AW_OPENAI_FIXTURES;
  if (!dir || !existsSync(join(dir, 'replay-server.mjs'))) {
    throw new Error('AW_OPENAI_FIXTURES must point at native-host/tests/fixtures/openai; run the tests with pkg-tests/run');
  }
  return dir;
}

/** Starts the replay server over `scenarios` (a file); resolves to `{ baseURL, requests(), reset(), stop() }`. */
async function replayServer(scenarios) {
  const child = spawn(process.execPath, [join(fixtures(), 'replay-server.mjs'), scenarios], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const port = await new Promise((resolve, reject) => {
    child.stdout.setEncoding('utf8').once('data', (line) => resolve(JSON.parse(line).port));
    exited.then((code) => reject(new Error(`the replay server exited with ${code}`)));
  });
  const root = `http://127.0.0.1:${port}`;
  return {
    baseURL: `${root}/v1`,
    requests: async () => (await fetch(`${root}/__requests`)).json(),
    reset: () => fetch(`${root}/__reset`, { method: 'POST' }),
    async stop() {
      child.stdin.end(); // the server exits when its stdin closes
      await exited;
    },
  };
}

let server;
before(async () => {
  server = await replayServer(join(fixtures(), 'scenarios.json'));
});
after(() => server.stop());

const model = (options = {}) => openaiCompatible({ baseURL: server.baseURL, apiKey: SECRET, model: 'gpt-4o-mini', ...options });

/** Runs `prompt` on a fresh agent (mock GitHub server) and returns `{ answer | error, log, ms }`. */
async function run(prompt, options) {
  await server.reset();
  const agent = await createAgent({ model: model(options) });
  const log = eventLog();
  const started = performance.now();
  try {
    return { answer: await agent.run(prompt, { onEvent: log.onEvent }), log, ms: performance.now() - started };
  } catch (error) {
    return { error: error.message, log, ms: performance.now() - started };
  } finally {
    agent.close();
  }
}

test('streamed tool-call fragments drive a full run: tool call, result, streamed answer', T, async () => {
  const { answer, error, log } = await run('List the open issues in vercel/ai.');
  assert.equal(error, undefined);
  assert.equal(answer, 'vercel/ai has open issues, among them #6241 about MCP pagination.');
  // The arguments arrived in fragments split across reads; the tool got them whole.
  const [start] = log.of('tool_start');
  assert.equal(start.name, 'mcp__github__list_issues');
  assert.deepEqual(start.args, { owner: 'vercel', repo: 'ai', state: 'open' });
  const [end] = log.of('tool_end');
  assert.equal(end.ok, true);
  assert.match(end.output, /issues\/6241/);
  const streamed = log.of('text_delta').map((e) => e.text).join('');
  assert.equal(streamed, `Let me look that up.${answer}`);
  assert.deepEqual(log.types().filter((t) => t !== 'text_delta'), ['step_start', 'step_end', 'model_text', 'tool_start', 'tool_end', 'step_start', 'step_end', 'model_text', 'done']);
  // Each step's last chunk reported usage (asked for with stream_options): per step, then summed.
  assert.deepEqual(log.of('step_end').map((e) => [e.step, e.usage.input_tokens, e.usage.cache_read_tokens]), [[1, 2006, 0], [2, 3214, 1920]]);
  assert.deepEqual(log.of('done')[0].usage, { input_tokens: 5220, output_tokens: 55, cache_read_tokens: 1920 });
  assert.deepEqual(log.of('model_text').map((e) => e.text), ['Let me look that up.', answer]);

  const requests = await server.requests();
  assert.equal(requests.length, 2);
  assert.equal(requests[0].path, '/v1/chat/completions');
  assert.equal(requests[0].headers.authorization, `Bearer ${SECRET}`);
  assert.equal(requests[0].body.stream, true);
  assert.deepEqual(requests[0].body.stream_options, { include_usage: true });
  assert.equal(requests[0].body.model, 'gpt-4o-mini');
  assert.ok(requests[0].body.tools.some((t) => t.function.name === 'mcp__github__list_issues'));
  // The second request carries the assistant's tool call and the tool's result.
  const tail = requests[1].body.messages.slice(-2);
  assert.equal(tail[0].tool_calls[0].id, 'call_list_1');
  assert.equal(tail[1].role, 'tool');
  assert.equal(tail[1].tool_call_id, 'call_list_1');
  assert.match(tail[1].content, /"number": ?6241/);
});

test('plain JSON answers (stream: false) and streamed text answers', T, async () => {
  const plain = await run('What is the capital of France?', { stream: false });
  assert.equal(plain.answer, 'Paris is the capital of France.');
  // A plain JSON body's usage too; counts it does not report are not invented.
  assert.deepEqual(plain.log.of('done')[0].usage, { input_tokens: 31, output_tokens: 9 });
  assert.equal((await server.requests())[0].body.stream, false);
  const streamed = await run('Say hello, slowly.');
  assert.ok(streamed.log.of('text_delta').length > 2);
  assert.equal(streamed.log.of('text_delta').map((e) => e.text).join(''), streamed.answer);
  assert.match(streamed.answer, /你好/);
});

test('streamed reasoning arrives as reasoning_delta events, apart from the answer and the history', T, async () => {
  await server.reset();
  const agent = await createAgent({ model: model() });
  const log = eventLog();
  try {
    const answer = await agent.run('先想一想：17 乘 3 是多少？', { onEvent: log.onEvent });
    assert.equal(answer, '17 × 3 = 51。');
    assert.deepEqual(log.of('reasoning_delta').map((e) => e.text), ['17 乘 3，', '等于 51。']);
    assert.equal(log.of('text_delta').map((e) => e.text).join(''), answer);
    // Reasoning comes first, and is shown only: the history keeps the answer alone.
    assert.ok(log.types().indexOf('reasoning_delta') < log.types().indexOf('text_delta'));
    assert.ok(!JSON.stringify(agent.history()).includes('等于 51'));
  } finally {
    agent.close();
  }
});

test('HTTP 401: the error names the status and the server, never shows the key, is not retried', T, async () => {
  const { error } = await run('Use the wrong key.');
  assert.match(error, /the model server at http:\/\/127\.0\.0\.1:\d+\/v1 rejected the API key: Incorrect API key provided: \[API key\]\. .*\(HTTP 401\); check the apiKey$/);
  assert.ok(!error.includes(SECRET), error);
  assert.equal((await server.requests()).length, 1);
});

test('HTTP 429 with Retry-After: waits as asked, then succeeds', T, async () => {
  const { answer, error, ms } = await run('Rate limited once.');
  assert.equal(error, undefined);
  assert.equal(answer, 'Worth the wait.');
  assert.equal((await server.requests()).length, 2);
  assert.ok(ms >= 950, `Retry-After: 1 asked for a second, waited ${ms} ms`);
});

test('HTTP 503 then 502: retried with backoff until the answer', T, async () => {
  const { answer, error } = await run('Overloaded twice.');
  assert.equal(error, undefined);
  assert.equal(answer, 'Back again.');
  assert.equal((await server.requests()).length, 3);
});

test('HTTP 500 on every attempt: gives up after the retries, with the server message', T, async () => {
  const { error } = await run('Server keeps failing.', { retries: 1 });
  assert.match(error, /the model server still answered HTTP 500 after 2 attempts: The server had an error while processing your request/);
  assert.equal((await server.requests()).length, 2);
  const once = await run('Server keeps failing.', { retries: 0 });
  assert.match(once.error, /HTTP 500 after 1 attempts/);
  assert.equal((await server.requests()).length, 1);
});

test('HTTP 429 asking for an hour fails at once; 404 is not retried', T, async () => {
  const hour = await run('Rate limited for an hour.');
  assert.match(hour.error, /HTTP 429 and asks to retry in 3600 s, longer than the 60 s agentwire waits: You exceeded your current quota/);
  assert.equal((await server.requests()).length, 1);
  const missing = await run('Unknown model.');
  assert.match(missing.error, /the model server answered HTTP 404: The model `gpt-17` does not exist/);
  assert.equal((await server.requests()).length, 1);
});

test('openaiCompatible rejects a bad retries option', () => {
  assert.throws(() => model({ retries: -1 }), /openaiCompatible: "retries" must be a whole number of at least 0, got the number -1/);
});

test('a replayed model calls a tool of server-everything over Streamable HTTP', T, async () => {
  // A scenario of our own for the same replay server: the echo call streamed in fragments.
  const dir = mkdtempSync(join(tmpdir(), 'agentwire-openai-'));
  const chunk = (delta, finish = null) => ({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] });
  const call = (args) => ({ tool_calls: [{ index: 0, function: { arguments: args } }] });
  const scenarios = {
    scenarios: {
      'Echo over HTTP.': [
        {
          splitEvery: 7,
          sse: [
            chunk({ role: 'assistant', tool_calls: [{ index: 0, id: 'call_e', type: 'function', function: { name: 'mcp__everything__echo', arguments: '' } }] }),
            chunk(call('{"mess')),
            chunk(call('age":"rel')),
            chunk(call('ayed"}')),
            chunk({}, 'tool_calls'),
            '[DONE]',
          ],
        },
        { sse: [chunk({ role: 'assistant', content: 'The server said it back.' }), chunk({}, 'stop'), '[DONE]'] },
      ],
    },
  };
  writeFileSync(join(dir, 'scenarios.json'), JSON.stringify(scenarios));
  const replay = await replayServer(join(dir, 'scenarios.json'));
  const everything = await startEverythingHttp();
  try {
    const agent = await createAgent({
      model: openaiCompatible({ baseURL: replay.baseURL, model: 'm' }),
      servers: { everything: httpTransport(everything.url) },
    });
    try {
      const log = eventLog();
      assert.equal(await agent.run('Echo over HTTP.', { onEvent: log.onEvent }), 'The server said it back.');
      const [end] = log.of('tool_end');
      assert.equal(end.name, 'mcp__everything__echo');
      assert.equal(end.ok, true);
      assert.equal(end.output, 'Echo: relayed');
      const [, second] = await replay.requests();
      assert.equal(second.body.messages.at(-1).content, 'Echo: relayed');
    } finally {
      agent.close();
    }
  } finally {
    await everything.stop();
    await replay.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
