// anthropic() against the local replay server speaking the Messages API (the native tests'
// fixture, native-host/tests/fixtures/anthropic): a run with streamed thinking and a tool call
// whose input arrives in fragments, usage with cache writes, prompt-caching breakpoints, the
// 401 / 529 cases, and the browser opt-in.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { anthropic, createAgent } from 'agentwire';
import { eventLog } from './helpers.mjs';

const T = { timeout: 60_000 };
/** The replay server quotes this key in its 401 body; it must not reach us. */
const SECRET = 'sk-ant-api03-test-secret-key-123';

function fixtures() {
  const dir = process.env.AW_OPENAI_FIXTURES;
  if (!dir || !existsSync(join(dir, 'replay-server.mjs'))) {
    throw new Error('AW_OPENAI_FIXTURES must point at native-host/tests/fixtures/openai; run the tests with pkg-tests/run');
  }
  return dir;
}

let server;
before(async () => {
  const scenarios = join(fixtures(), '..', 'anthropic', 'scenarios.json');
  const child = spawn(process.execPath, [join(fixtures(), 'replay-server.mjs'), scenarios], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const port = await new Promise((resolve, reject) => {
    child.stdout.setEncoding('utf8').once('data', (line) => resolve(JSON.parse(line).port));
    exited.then((code) => reject(new Error(`the replay server exited with ${code}`)));
  });
  const root = `http://127.0.0.1:${port}`;
  server = {
    baseURL: root,
    requests: async () => (await fetch(`${root}/__requests`)).json(),
    reset: () => fetch(`${root}/__reset`, { method: 'POST' }),
    async stop() {
      child.stdin.end();
      await exited;
    },
  };
});
after(() => server.stop());

async function run(prompt, options = {}) {
  await server.reset();
  const model = anthropic({ apiKey: SECRET, model: 'claude-sonnet-4-5', baseURL: server.baseURL, ...options });
  const agent = await createAgent({ model });
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

test('a run: thinking streamed apart, tool input from fragments, usage with cache writes', T, async () => {
  const { answer, error, log } = await run('What is 6 times 7?');
  assert.equal(error, undefined);
  assert.equal(answer, '6 × 7 = 42.');
  assert.equal(log.of('reasoning_delta').map((e) => e.text).join(''), 'Arithmetic: use the calculator.');
  assert.deepEqual(log.of('tool_start')[0].args, { expression: '6*7' });
  assert.deepEqual(log.of('done')[0].usage, {
    input_tokens: 3755,
    output_tokens: 69,
    cache_read_tokens: 1800,
    cache_write_tokens: 1890,
  });
  const requests = await server.requests();
  assert.equal(requests.length, 2);
  assert.equal(requests[0].path, '/v1/messages');
  assert.equal(requests[0].headers['x-api-key'], SECRET);
  assert.equal(requests[0].headers['anthropic-version'], '2023-06-01');
  assert.equal(requests[0].headers['anthropic-dangerous-direct-browser-access'], undefined);
  const tools = requests[0].body.tools;
  assert.deepEqual(tools[tools.length - 1].cache_control, { type: 'ephemeral' });
  // The second request starts with the first's bytes up to its message breakpoint.
  const first = JSON.stringify(requests[0].body);
  const second = JSON.stringify(requests[1].body);
  assert.ok(second.startsWith(first.slice(0, first.lastIndexOf(',"cache_control"'))));
});

test('HTTP 401 never shows the key; 529 is retried after retry-after', T, async () => {
  const denied = await run('Wrong key.');
  assert.match(denied.error, /rejected the API key: invalid x-api-key: \[API key\] \(type authentication_error\) \(HTTP 401\)/);
  assert.ok(!denied.error.includes(SECRET));
  const overloaded = await run('Overloaded first.');
  assert.equal(overloaded.answer, 'Back now.');
  assert.ok(overloaded.ms >= 950, `${overloaded.ms} ms`);
  const cut = await run('Too long.');
  assert.match(cut.error, /max_tokens/);
});

test('in a browser page only with dangerouslyAllowBrowser, which sends the opt-in header', T, async () => {
  globalThis.window = {};
  globalThis.document = {};
  try {
    assert.throws(() => anthropic({ apiKey: SECRET, model: 'claude-sonnet-4-5' }), /refusing to run in a browser/);
    const { answer } = await run('What is the capital of France?', { dangerouslyAllowBrowser: true, stream: false });
    assert.equal(answer, 'Paris is the capital of France.');
    const [sent] = await server.requests();
    assert.equal(sent.headers['anthropic-dangerous-direct-browser-access'], 'true');
  } finally {
    delete globalThis.window;
    delete globalThis.document;
  }
});
