// Over the network, from inside the runtime: httpTransport against Streamable HTTP MCP servers
// (a recording one written here, and server-everything) and openaiCompatible against the
// OpenAI-compatible replay server, all on loopback.
import { createAgent, diagnostics, httpTransport, openaiCompatible } from 'agentwire';
import { assert, eventLog, seededRandom, test, watchUnhandledRejections } from '../harness.mjs';
import { sleep, terminalEvents } from './scripted.mjs';

test('httpTransport: connect, list and call echo on a Streamable HTTP MCP server', async (env) => {
  const agent = await createAgent({ servers: { rec: httpTransport(env.mcpUrl) } });
  try {
    const [server] = agent.servers();
    assert.equal(server.status, 'connected', JSON.stringify(server));
    const result = await agent.callTool('mcp__rec__echo', { message: `hi from ${env.runtime}` });
    assert.equal(result.content[0].text, `echo: hi from ${env.runtime}`);
  } finally {
    agent.close();
  }
});

test('httpTransport against server-everything (Streamable HTTP): echo, get-sum, then close', async (env) => {
  if (!env.everythingUrl) throw new Error('env.everythingUrl is missing (run.mjs starts server-everything)');
  const agent = await createAgent({ servers: { everything: httpTransport(env.everythingUrl) } });
  try {
    const [server] = agent.servers();
    assert.equal(server.status, 'connected', server.error);
    assert.ok(agent.tools().filter((t) => t.server === 'everything').length > 5, 'server-everything lists its tools');
    const echo = await agent.callTool('mcp__everything__echo', { message: `from ${env.runtime}` });
    assert.equal(echo.text, `Echo: from ${env.runtime}`);
    const sum = await agent.callTool('mcp__everything__get-sum', { a: 20, b: 22 });
    assert.match(sum.text, /\b42\b/);
  } finally {
    agent.close();
  }
});

test('httpTransport against a stateless modern-only server (TypeScript SDK v2, 2026-07-28): era, a call, roots by MRTR', async (env) => {
  if (!env.modernUrl) throw new Error('env.modernUrl is missing (run.mjs starts the modern server)');
  const root = { uri: 'file:///srv/project', name: 'project' };
  const agent = await createAgent({ servers: { modern: httpTransport(env.modernUrl) }, roots: [root] });
  try {
    const [server] = agent.servers();
    assert.equal(server.status, 'connected', server.error);
    assert.equal(server.era, 'modern', `a server that refuses the legacy era is spoken to in 2026-07-28: ${JSON.stringify(server)}`);
    assert.equal(server.protocolVersion, '2026-07-28');
    const echo = await agent.callTool('mcp__modern__echo', { text: `from ${env.runtime}` });
    assert.equal(echo.isError, false, echo.text);
    assert.equal(echo.text, `modern: from ${env.runtime}`);
    // `where` answers input_required asking for the roots; the session answers with the
    // agent's roots and re-sends the call: one tool call for the host, two round trips.
    const where = await agent.callTool('mcp__modern__where', {});
    assert.equal(where.text, `roots=${root.uri}`);
  } finally {
    agent.close();
  }
});

test('openaiCompatible over the replay server: tool call, result, streamed answer', async (env) => {
  await fetch(env.openaiReset, { method: 'POST' }); // each scenario starts at its first answer
  const model = openaiCompatible({ baseURL: env.openaiBaseURL, apiKey: 'sk-test', model: 'gpt-4o-mini' });
  const agent = await createAgent({ model });
  try {
    const log = eventLog();
    const answer = await agent.run('List the open issues in vercel/ai.', { onEvent: log.onEvent });
    assert.equal(log.of('tool_start')[0]?.name, 'mcp__github__list_issues', JSON.stringify(log.events));
    assert.ok(answer.length > 0, 'empty answer');
    assert.equal(log.types().at(-1), 'done');
  } finally {
    agent.close();
  }
});

/** How many chat completion requests the replay server has received since its last reset. */
async function modelRequests(env) {
  const log = await (await fetch(env.openaiRequests)).json();
  return log.filter((r) => r.path.endsWith('/chat/completions')).length;
}

/** Resolves once no request to the model server is open (the CORS front counts them). */
async function modelRequestsClosed(env, what) {
  for (let i = 0; ; i++) {
    const { open } = await (await fetch(env.openaiOpen)).json();
    if (open === 0) return;
    if (i > 200) throw new Error(`${what}: ${open} request(s) to the model server still open 2 s after the run ended`);
    await sleep(10);
  }
}

test('abort during a model request over HTTP (no answer; a stalled stream): one error event, the request closed', async (env) => {
  await fetch(env.openaiReset, { method: 'POST' });
  const model = openaiCompatible({ baseURL: env.openaiBaseURL, apiKey: 'sk-test', model: 'gpt-4o-mini' });
  const agent = await createAgent({ model, servers: {} });
  try {
    for (const prompt of ['Never answer.', 'Stall mid-answer.']) {
      const controller = new AbortController();
      const log = eventLog();
      const before = await modelRequests(env);
      const run = agent.run(prompt, { signal: controller.signal, onEvent: log.onEvent });
      for (let i = 0; (await modelRequests(env)) === before; i++) {
        if (i > 500) throw new Error(`${prompt}: the model request never reached the replay server`);
        await sleep(10);
      }
      await sleep(30); // the stalled stream has sent its first events
      controller.abort(new Error('user pressed stop'));
      await assert.rejects(run, (e) => e.name === 'AbortError', `${prompt}: the run did not end with an AbortError`);
      await sleep(5);
      assert.deepEqual(terminalEvents(log).map((e) => e.type), ['error'], `${prompt}: ${log.types().join()}`);
      assert.deepEqual(diagnostics(), { timers: 0, modelCalls: 0, toolCalls: 0 }, `${prompt}: diagnostics() after the abort`);
      await modelRequestsClosed(env, prompt); // the request itself was cancelled
    }
    assert.match(await agent.run('Say hello, slowly.'), /\S/);
  } finally {
    agent.close();
  }
});

test('30 streamed model answers over HTTP aborted at random moments: one terminal event each, no request left open', async (env) => {
  if (!Number.isInteger(env.seed)) throw new Error('env.seed must be an integer (run.mjs sets it)');
  const random = seededRandom(env.seed ^ 0x5eed);
  const where = `seed ${env.seed}`;
  await fetch(env.openaiReset, { method: 'POST' });
  const watch = watchUnhandledRejections();
  const model = openaiCompatible({ baseURL: env.openaiBaseURL, apiKey: 'sk-test', model: 'gpt-4o-mini' });
  const agent = await createAgent({ model, servers: {} });
  try {
    const outcomes = { done: 0, AbortError: 0 };
    for (let i = 0; i < 30; i++) {
      const controller = new AbortController();
      const log = eventLog();
      const run = agent.run('Say hello, slowly.', { signal: controller.signal, onEvent: log.onEvent });
      const timer = setTimeout(() => controller.abort(), random() * 60); // the answer streams for ~40 ms
      const outcome = await run.then(
        () => 'done',
        (e) => e.name,
      );
      clearTimeout(timer);
      assert.ok(outcome in outcomes, `${where}, run ${i}: ended with ${outcome}`);
      outcomes[outcome]++;
      await sleep(2);
      assert.equal(terminalEvents(log).length, 1, `${where}, run ${i}: ${log.types().join()}`);
      assert.deepEqual(diagnostics(), { timers: 0, modelCalls: 0, toolCalls: 0 }, `${where}, after run ${i}`);
      await modelRequestsClosed(env, `${where}, run ${i} (${outcome})`);
    }
    assert.ok(outcomes.AbortError >= 5, `${where}: only ${outcomes.AbortError} of 30 runs were aborted mid-way`);
    await sleep(10);
    const unhandled = watch.reasons.map(String);
    assert.deepEqual(unhandled, [], `${where}: unhandled rejections: ${unhandled.join('; ')}`);
  } finally {
    watch.stop();
    agent.close();
  }
});
