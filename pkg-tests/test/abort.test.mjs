// Cancelling runs with an AbortSignal, runs as async-iterable streams, and the runtime's own
// leak counters after many aborted runs.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createAgent, diagnostics } from 'agentwire';
import { eventLog, minimalServer, scriptedTransport } from './helpers.mjs';

/**
 * A JS model that first asks for `tool` (when given) and answers once the tool result is in.
 * `hang` makes a call wait until its signal aborts; every call's signal is kept.
 */
function scriptedModel({ tool, hang = () => false } = {}) {
  const signals = [];
  return {
    signals,
    async complete(request, { signal }) {
      signals.push(signal);
      if (hang(request)) {
        await new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
      }
      const last = request.messages.at(-1);
      if (tool && last.role === 'user') return { toolCalls: [{ id: 'call_1', name: tool, arguments: {} }] };
      return { text: `answer to ${request.messages.filter((m) => m.role === 'user').length} prompts` };
    },
  };
}

/** Resolves once `check()` is true, polling on the event loop. */
async function until(check) {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 1));
}

function terminalEvents(log) {
  return log.events.filter((e) => e.type === 'done' || e.type === 'error');
}

test('aborting during the model call aborts its signal, ends with one error event, and the agent runs again', async () => {
  let hang = true;
  const model = scriptedModel({ hang: () => hang });
  const agent = await createAgent({ model, servers: {} });
  try {
    const controller = new AbortController();
    const log = eventLog();
    const run = agent.run('hello', { signal: controller.signal, onEvent: log.onEvent });
    await until(() => model.signals.length === 1);
    controller.abort(new Error('user pressed stop'));
    await assert.rejects(run, (error) => error.name === 'AbortError' && error.cause.message === 'user pressed stop');
    assert.equal(model.signals[0].aborted, true, 'the model request was cancelled');
    await new Promise((resolve) => setTimeout(resolve, 5));
    const ends = terminalEvents(log);
    assert.equal(ends.length, 1);
    assert.equal(ends[0].type, 'error');
    assert.match(ends[0].message, /AbortSignal \(user pressed stop\)/);
    hang = false;
    assert.equal(await agent.run('again'), 'answer to 2 prompts');
    assert.deepEqual(diagnostics(), { timers: 0, modelCalls: 0, toolCalls: 0 });
  } finally {
    agent.close();
  }
});

test('a signal aborted before the run rejects at once and starts nothing', async () => {
  const model = scriptedModel();
  const agent = await createAgent({ model, servers: {} });
  try {
    const log = eventLog();
    await assert.rejects(agent.run('hi', { signal: AbortSignal.abort(), onEvent: log.onEvent }), { name: 'AbortError' });
    assert.equal(model.signals.length, 0);
    assert.deepEqual(agent.history().messages, []);
    await assert.rejects(agent.run('hi', { signal: 'stop' }), {
      name: 'TypeError',
      message: /agent\.run: "signal" must be an AbortSignal/,
    });
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
    await assert.rejects(run, { name: 'AbortError' });
  } finally {
    agent.close();
  }
});

test('aborting during an MCP call sends notifications/cancelled for it', async () => {
  const transport = scriptedTransport(
    minimalServer([{ name: 'wait', inputSchema: { type: 'object' } }], () => undefined /* never answers */),
  );
  const model = scriptedModel({ tool: 'mcp__slow__wait' });
  const agent = await createAgent({ model, servers: { slow: transport }, allow: ['mcp__slow__wait'] });
  try {
    const controller = new AbortController();
    const log = eventLog();
    const run = agent.run('wait for it', { signal: controller.signal, onEvent: log.onEvent });
    await until(() => transport.received.some((m) => m.method === 'tools/call'));
    const call = transport.received.find((m) => m.method === 'tools/call');
    controller.abort();
    await assert.rejects(run, { name: 'AbortError' });
    const cancelled = transport.received.filter((m) => m.method === 'notifications/cancelled');
    assert.equal(cancelled.length, 1);
    assert.equal(cancelled[0].params.requestId, call.id);
    await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal(terminalEvents(log).length, 1);
    assert.deepEqual(diagnostics(), { timers: 0, modelCalls: 0, toolCalls: 0 });
  } finally {
    agent.close();
  }
});

test("aborting during a JS tool aborts the tool's signal with the run's reason", async () => {
  let toolSignal;
  const agent = await createAgent({
    model: scriptedModel({ tool: 'slow_tool' }),
    servers: {},
    tools: [
      {
        name: 'slow_tool',
        risk: 'read',
        execute: (_args, { signal }) => {
          toolSignal = signal;
          return new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
        },
      },
    ],
  });
  try {
    const controller = new AbortController();
    const run = agent.run('go', { signal: controller.signal });
    await until(() => toolSignal !== undefined);
    const reason = new Error('navigated away');
    controller.abort(reason);
    await assert.rejects(run, { name: 'AbortError' });
    assert.equal(toolSignal.aborted, true);
    assert.equal(toolSignal.reason, reason);
  } finally {
    agent.close();
  }
});

test('stream() yields the events onEvent gets and ends after done', async () => {
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
    assert.throws(() => b.stream(42), { name: 'TypeError', message: /agent\.stream: the prompt must be a string/ });
    assert.throws(() => b.stream('x', { onEvent() {} }), { name: 'TypeError', message: /unknown option "onEvent"/ });
  } finally {
    a.close();
    b.close();
  }
});

test('break out of stream() cancels the run like an abort; the agent runs again', async () => {
  let hang = true;
  const model = scriptedModel({ hang: () => hang });
  const agent = await createAgent({ model, servers: {} });
  try {
    const seen = [];
    for await (const event of agent.stream('hello')) {
      seen.push(event.type);
      if (event.type === 'step_start' || seen.length === 1) break;
    }
    assert.equal(model.signals[0].aborted, true, 'the model call was cancelled');
    assert.deepEqual(diagnostics(), { timers: 0, modelCalls: 0, toolCalls: 0 });
    hang = false;
    const types = [];
    for await (const event of agent.stream('again')) types.push(event.type);
    assert.equal(types.at(-1), 'done');
  } finally {
    agent.close();
  }
});

test('100 runs aborted at random moments leave no timer, no awaited call and no unhandled rejection', async () => {
  const unhandled = [];
  const onUnhandled = (reason) => unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  const answered = new Set();
  const transport = scriptedTransport(
    minimalServer([{ name: 'wait', inputSchema: { type: 'object' } }], (m) => {
      if (Math.random() < 0.5) return undefined; // this one never answers
      answered.add(m.id);
      return { jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: 'ok' }] } };
    }),
  );
  const model = {
    async complete(request, { signal }) {
      await new Promise((resolve, reject) => {
        const timer = setTimeout(resolve, Math.random() * 3);
        signal.addEventListener('abort', () => {
          clearTimeout(timer);
          reject(signal.reason);
        });
      });
      if (request.messages.at(-1).role === 'user') {
        return { toolCalls: [{ id: 'c', name: Math.random() < 0.5 ? 'mcp__slow__wait' : 'js_wait', arguments: {} }] };
      }
      return { text: 'done' };
    },
  };
  const agent = await createAgent({
    model,
    servers: { slow: transport },
    allow: ['mcp__slow__wait'],
    toolTimeoutMs: 60_000,
    tools: [
      {
        name: 'js_wait',
        risk: 'read',
        execute: (_args, { signal }) =>
          new Promise((resolve, reject) => {
            const timer = setTimeout(() => resolve('waited'), Math.random() * 4);
            signal.addEventListener('abort', () => {
              clearTimeout(timer);
              reject(signal.reason);
            });
          }),
      },
    ],
  });
  try {
    let aborted = 0;
    for (let i = 0; i < 100; i++) {
      const controller = new AbortController();
      const log = eventLog();
      const run = agent.run(`run ${i}`, { signal: controller.signal, onEvent: log.onEvent });
      setTimeout(() => controller.abort(), Math.random() * 6);
      const outcome = await run.then(
        () => 'done',
        (e) => e.name,
      );
      if (outcome === 'AbortError') aborted++;
      else assert.equal(outcome, 'done');
      await new Promise((resolve) => setTimeout(resolve, 7)); // the abort timer has fired
      assert.equal(terminalEvents(log).length, 1, `run ${i}: one terminal event`);
      assert.deepEqual(diagnostics(), { timers: 0, modelCalls: 0, toolCalls: 0 }, `after run ${i}`);
    }
    assert.ok(aborted > 10, `most runs were aborted mid-way (${aborted})`);
    // No MCP request is left pending: each call the server never answered was cancelled.
    const cancelled = new Set(
      transport.received.filter((m) => m.method === 'notifications/cancelled').map((m) => m.params.requestId),
    );
    const calls = transport.received.filter((m) => m.method === 'tools/call');
    assert.ok(calls.length > 10, `runs reached the MCP tool (${calls.length})`);
    for (const call of calls) {
      assert.ok(answered.has(call.id) || cancelled.has(call.id), `call ${call.id} was answered or cancelled`);
    }
    assert.deepEqual(unhandled, []);
  } finally {
    process.off('unhandledRejection', onUnhandled);
    agent.close();
  }
});
