// Cancelling runs with an AbortSignal in every runtime: the model request, MCP calls in flight
// (notifications/cancelled), one terminal event, the agent usable again, streams that end early,
// and 100 runs aborted at random moments that leave the runtime's own counters at zero.
import { createAgent, diagnostics } from 'agentwire';
import { assert, eventLog, seededRandom, test, watchUnhandledRejections } from '../harness.mjs';
import { minimalServer, scriptedModel, scriptedTransport, sleep, terminalEvents, until, untilAborted } from './scripted.mjs';

const IDLE = { timers: 0, modelCalls: 0, toolCalls: 0 };
const WAIT_TOOL = { name: 'wait', inputSchema: { type: 'object' } };

test('aborting during the model call aborts its signal, ends with one error event, and the agent runs again', async () => {
  let hang = true;
  const model = scriptedModel({ hang: () => hang });
  const agent = await createAgent({ model, servers: {} });
  try {
    const controller = new AbortController();
    const log = eventLog();
    const run = agent.run('hello', { signal: controller.signal, onEvent: log.onEvent });
    await until(() => model.signals.length === 1, 10_000, 'the model call');
    controller.abort(new Error('user pressed stop'));
    await assert.rejects(run, (e) => e.name === 'AbortError' && e.cause?.message === 'user pressed stop');
    assert.equal(model.signals[0].aborted, true, 'the model request was not cancelled');
    await sleep(5);
    const ends = terminalEvents(log);
    assert.deepEqual(ends.map((e) => e.type), ['error']);
    assert.match(ends[0].message, /AbortSignal \(user pressed stop\)/);
    hang = false;
    assert.equal(await agent.run('again'), 'answer to 2 prompts');
    assert.deepEqual(diagnostics(), IDLE);
  } finally {
    agent.close();
  }
});

test('a signal aborted before the run rejects at once and starts nothing; a non-signal is a TypeError', async () => {
  const model = scriptedModel();
  const agent = await createAgent({ model, servers: {} });
  try {
    const log = eventLog();
    await assert.rejects(agent.run('hi', { signal: AbortSignal.abort(), onEvent: log.onEvent }), (e) => e.name === 'AbortError');
    assert.equal(model.signals.length, 0);
    assert.deepEqual(agent.history().entries, []);
    await assert.throws(() => agent.run('hi', { signal: 'stop' }), TypeError, /agent\.run: "signal" must be an AbortSignal/);
  } finally {
    agent.close();
  }
});

test('an abort right after run() is called, before its first step, still stops that run', async () => {
  const model = scriptedModel({ hang: () => true });
  const agent = await createAgent({ model, servers: {} });
  try {
    const controller = new AbortController();
    const run = agent.run('hello', { signal: controller.signal });
    controller.abort();
    await assert.rejects(run, (e) => e.name === 'AbortError');
    assert.deepEqual(diagnostics(), IDLE);
  } finally {
    agent.close();
  }
});

test('aborting during an MCP call sends notifications/cancelled for it', async () => {
  const transport = scriptedTransport(minimalServer([WAIT_TOOL], () => undefined /* never answers */));
  const model = scriptedModel({ tool: 'mcp__slow__wait' });
  const agent = await createAgent({ model, servers: { slow: transport }, allow: ['mcp__slow__wait'] });
  try {
    const controller = new AbortController();
    const log = eventLog();
    const run = agent.run('wait for it', { signal: controller.signal, onEvent: log.onEvent });
    await until(() => transport.received.some((m) => m.method === 'tools/call'), 10_000, 'the tools/call');
    const call = transport.received.find((m) => m.method === 'tools/call');
    controller.abort();
    await assert.rejects(run, (e) => e.name === 'AbortError');
    const cancelled = transport.received.filter((m) => m.method === 'notifications/cancelled');
    assert.deepEqual(cancelled.map((m) => m.params.requestId), [call.id]);
    await sleep(5);
    assert.equal(terminalEvents(log).length, 1);
    assert.deepEqual(diagnostics(), IDLE);
  } finally {
    agent.close();
  }
});

test('stream() yields the events onEvent gets and ends after done; bad arguments are TypeErrors', async () => {
  const model = scriptedModel({ tool: 'echo_tool' });
  const tools = [{ name: 'echo_tool', risk: 'read', execute: () => 'echoed' }];
  const a = await createAgent({ model, servers: {}, tools });
  const b = await createAgent({ model, servers: {}, tools });
  try {
    const log = eventLog();
    await a.run('say it', { onEvent: log.onEvent });
    const streamed = [];
    for await (const event of b.stream('say it')) streamed.push(event);
    const strip = (events) => events.map(({ type, name, answer }) => ({ type, name, answer }));
    assert.deepEqual(strip(streamed), strip(log.events));
    assert.equal(streamed.at(-1).type, 'done');
    await assert.throws(() => b.stream(42), TypeError, /agent\.stream: the prompt must be a string/);
    await assert.throws(() => b.stream('x', { onEvent() {} }), TypeError, /unknown option "onEvent"/);
  } finally {
    a.close();
    b.close();
  }
});

test('break out of stream() during the model call cancels it; the agent streams again', async () => {
  let hang = true;
  const model = scriptedModel({ hang: () => hang });
  const agent = await createAgent({ model, servers: {} });
  try {
    for await (const event of agent.stream('hello')) {
      if (event.type === 'step_start') break;
    }
    assert.equal(model.signals[0]?.aborted, true, 'the model call was not cancelled');
    assert.deepEqual(diagnostics(), IDLE);
    hang = false;
    const types = [];
    for await (const event of agent.stream('again')) types.push(event.type);
    assert.equal(types.at(-1), 'done');
  } finally {
    agent.close();
  }
});

test('the unhandled-rejection watcher sees a rejection nobody handles, and takes back one handled late', async () => {
  const watch = watchUnhandledRejections();
  try {
    const probe = new Error('probe: deliberately unhandled');
    Promise.reject(probe);
    await until(() => watch.reasons.includes(probe), 5_000, 'the unhandled rejection report');
    const late = new Error('probe: handled late');
    const promise = Promise.reject(late);
    await until(() => watch.reasons.includes(late), 5_000, 'the second report');
    promise.catch(() => {});
    await until(() => !watch.reasons.includes(late), 5_000, 'the rejectionhandled report');
    assert.deepEqual(watch.reasons, [probe]);
  } finally {
    watch.stop();
  }
});

test('100 runs aborted at random moments leave no pending call, no timer and no unhandled rejection', async (env) => {
  if (!Number.isInteger(env.seed)) throw new Error('env.seed must be an integer (run.mjs sets it)');
  const random = seededRandom(env.seed);
  const where = `seed ${env.seed}`;
  const watch = watchUnhandledRejections();
  const answered = new Set();
  const transport = scriptedTransport(
    minimalServer([WAIT_TOOL], (m) => {
      if (random() < 0.5) return undefined; // this one never answers
      answered.add(m.id);
      return { jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: 'ok' }] } };
    }),
  );
  // Model calls and JS tool calls in flight, as the JS side sees them.
  const inFlight = { model: 0, tool: 0 };
  /**
   * Waits up to `ms`, or, one time in ten, until `signal` aborts (a call only the abort can
   * end); an abort rejects with its reason and clears the timer.
   */
  const wait = (ms, signal, counter) => {
    inFlight[counter]++;
    const hangs = random() < 0.1;
    return new Promise((resolve, reject) => {
      const timer = hangs ? undefined : setTimeout(resolve, ms);
      signal.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(signal.reason);
      });
    }).finally(() => inFlight[counter]--);
  };
  const model = {
    async complete(request, { signal }) {
      await wait(random() * 3, signal, 'model');
      if (request.messages.at(-1).role === 'user') {
        return { toolCalls: [{ id: 'c', name: random() < 0.5 ? 'mcp__slow__wait' : 'js_wait', arguments: {} }] };
      }
      return { text: 'done' };
    },
  };
  const tools = [{ name: 'js_wait', risk: 'read', execute: (_args, { signal }) => wait(random() * 4, signal, 'tool').then(() => 'waited') }];
  const agent = await createAgent({ model, servers: { slow: transport }, allow: ['mcp__slow__wait'], toolTimeoutMs: 60_000, tools });
  try {
    let aborted = 0;
    for (let i = 0; i < 100; i++) {
      const controller = new AbortController();
      const log = eventLog();
      const run = agent.run(`run ${i}`, { signal: controller.signal, onEvent: log.onEvent });
      setTimeout(() => controller.abort(), random() * 10);
      const outcome = await run.then(
        () => 'done',
        (e) => e.name,
      );
      if (outcome === 'AbortError') aborted++;
      else assert.equal(outcome, 'done', `${where}, run ${i}: ended with ${outcome}`);
      await sleep(11); // the abort timer has fired
      assert.equal(terminalEvents(log).length, 1, `${where}, run ${i}: ${log.types().join()}`);
      assert.deepEqual(diagnostics(), IDLE, `${where}, after run ${i}: diagnostics() = ${JSON.stringify(diagnostics())}`);
      assert.deepEqual(inFlight, { model: 0, tool: 0 }, `${where}, after run ${i}: calls still awaited ${JSON.stringify(inFlight)}`);
    }
    assert.ok(aborted > 10, `${where}: only ${aborted} of 100 runs were aborted mid-way`);
    // No MCP request is left pending: each call the server never answered was cancelled.
    const cancelled = new Set(transport.received.filter((m) => m.method === 'notifications/cancelled').map((m) => m.params.requestId));
    const calls = transport.received.filter((m) => m.method === 'tools/call');
    assert.ok(calls.length > 10, `${where}: only ${calls.length} runs reached the MCP tool`);
    const pending = calls.filter((c) => !answered.has(c.id) && !cancelled.has(c.id)).map((c) => c.id);
    assert.deepEqual(pending, [], `${where}: MCP calls neither answered nor cancelled`);
    await sleep(10); // rejections are reported after the microtask queue drains
    const unhandled = watch.reasons.map(String);
    assert.deepEqual(unhandled, [], `${where}: unhandled rejections: ${unhandled.join('; ')}`);
  } finally {
    watch.stop();
    agent.close();
  }
});
