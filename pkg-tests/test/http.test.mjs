// MCP servers over Streamable HTTP with httpTransport: the published server-everything in its
// HTTP mode, and a recording server that shows every request and scripts failures.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createAgent, httpTransport, mockGithub } from 'agentwire';
import { eventLog } from './helpers.mjs';
import { eventually, freePort, recordingServer, startEverythingHttp } from './http-helpers.mjs';
import { callOnceModel } from '../portable/suite/scripted.mjs';

const T = { timeout: 60_000 };

test('server-everything over Streamable HTTP: tools, calls, a full run, DELETE on close', T, async () => {
  const server = await startEverythingHttp();
  const events = [];
  try {
    const agent = await createAgent({
      servers: { everything: httpTransport(server.url, { onEvent: (e) => events.push(e) }) },
      model: callOnceModel('mcp__everything__echo', { message: 'hello over http' }),
    });
    let sessionId;
    try {
      const [status] = agent.servers();
      assert.equal(status.status, 'connected', status.error);
      assert.match(status.serverInfo.name, /everything/i);
      // Besides the server's tools: the two resource tools, since server-everything offers resources.
      const all = agent.tools().map((t) => t.name);
      assert.ok(all.includes('list_mcp_resources') && all.includes('read_mcp_resource'), all.join(', '));
      const names = all.filter((n) => n.startsWith('mcp__'));
      assert.equal(names.length, status.tools);
      assert.ok(names.every((n) => n.startsWith('mcp__everything__')), names.join(', '));
      for (const tool of ['echo', 'get-sum', 'get-structured-content', 'get-tiny-image']) {
        assert.ok(names.includes(`mcp__everything__${tool}`), `${tool} in ${names.join(', ')}`);
      }
      sessionId = server.stdout().match(/Session initialized with ID: (\S+)/)?.[1];
      assert.ok(sessionId, server.stdout());

      const echo = await agent.callTool('mcp__everything__echo', { message: 'straight through' });
      assert.equal(echo.isError, false);
      assert.equal(echo.text, 'Echo: straight through');
      const sum = await agent.callTool('mcp__everything__get-sum', { a: 2, b: 40 });
      assert.match(sum.text, /\b42\b/);
      const weather = await agent.callTool('mcp__everything__get-structured-content', { location: 'Chicago' });
      assert.equal(typeof weather.structuredContent.temperature, 'number');
      assert.deepEqual(JSON.parse(weather.content[0].text), weather.structuredContent);
      const image = await agent.callTool('mcp__everything__get-tiny-image', {});
      assert.ok(image.content.some((b) => b.type === 'image' && b.mimeType === 'image/png' && b.data.length > 100));
      // Several calls in flight at once, each on its own POST.
      const many = await Promise.all([1, 2, 3, 4, 5].map((n) => agent.callTool('mcp__everything__echo', { message: `n${n}` })));
      assert.deepEqual(many.map((r) => r.text), ['Echo: n1', 'Echo: n2', 'Echo: n3', 'Echo: n4', 'Echo: n5']);

      const log = eventLog();
      const answer = await agent.run('echo something', { onEvent: log.onEvent });
      assert.equal(answer, 'tool said: Echo: hello over http');
      const [end] = log.of('tool_end');
      assert.equal(end.name, 'mcp__everything__echo');
      assert.equal(end.ok, true);
    } finally {
      agent.close();
    }
    // close() sent DELETE with the session id; the server ended that session.
    await eventually(() => server.stdout().includes(`Received session termination request for session ${sessionId}`), 5_000, 'the DELETE');
    assert.deepEqual(events, []);
  } finally {
    await server.stop();
  }
});

test('custom headers reach the server on every request, beside the protocol headers', T, async () => {
  const server = await recordingServer();
  const agent = await createAgent({
    servers: { rec: httpTransport(server.url, { headers: { Authorization: 'Bearer t0ken', 'X-Agentwire-Test': 'yes', Accept: 'text/html' } }) },
  });
  try {
    assert.equal(agent.servers()[0].status, 'connected', agent.servers()[0].error);
    const result = await agent.callTool('mcp__rec__echo', { message: 'hi' });
    assert.equal(result.text, 'echo: hi');
  } finally {
    agent.close();
  }
  await eventually(() => server.requests.some((r) => r.method === 'DELETE'), 5_000, 'the DELETE');
  await server.stop();
  const methods = server.requests.map((r) => `${r.method} ${r.body?.method ?? ''}`.trim());
  // The auto era's probe first (this legacy server refuses it: no session), then initialize;
  // after it, messages go out on parallel requests: their arrival order is not fixed.
  const posts = methods.filter((m) => m !== 'GET');
  assert.deepEqual(posts.slice(0, 2), ['POST server/discover', 'POST initialize']);
  assert.deepEqual(posts.slice(2, -1).sort(), ['POST notifications/initialized', 'POST tools/call', 'POST tools/list']);
  assert.equal(posts.at(-1), 'DELETE');
  assert.ok(methods.includes('GET'), 'the optional GET stream was asked for');
  for (const request of server.requests) {
    assert.equal(request.headers.authorization, 'Bearer t0ken', request.method);
    assert.equal(request.headers['x-agentwire-test'], 'yes');
    // The protocol's own headers win over a user header of the same name.
    assert.notEqual(request.headers.accept, 'text/html');
  }
  const [probe, initialize, ...later] = server.requests;
  assert.equal(probe.headers['mcp-method'], 'server/discover', 'a modern request names its method');
  assert.equal(probe.headers['mcp-protocol-version'], '2026-07-28');
  assert.equal(initialize.headers['mcp-session-id'], undefined);
  assert.equal(initialize.headers['mcp-method'], undefined, 'legacy requests carry no modern headers');
  assert.equal(initialize.headers.accept, 'application/json, text/event-stream');
  for (const request of later) {
    assert.equal(request.headers['mcp-session-id'], 'session-1', request.method);
    assert.equal(request.headers['mcp-protocol-version'], initialize.body.params.protocolVersion);
  }
});

test('the transport on its own: send, onMessage, then close sends DELETE and reports onClose', T, async () => {
  const server = await recordingServer();
  const transport = httpTransport(server.url);
  const messages = [];
  const closed = new Promise((resolve) => transport.onClose(resolve));
  transport.onMessage((m) => messages.push(JSON.parse(m)));
  // The wasm module is loaded by any createAgent; this test may run first.
  await (await import('agentwire')).init();
  transport.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } }));
  await eventually(() => messages.length === 1, 5_000, 'the initialize answer');
  assert.equal(messages[0].result.serverInfo.name, 'recording');
  transport.close();
  assert.equal(await closed, 'closed by the client');
  const deleted = server.requests.find((r) => r.method === 'DELETE');
  assert.equal(deleted.headers['mcp-session-id'], 'session-1');
  assert.throws(() => transport.send('{}'), /the HTTP transport to http:\/\/127\.0\.0\.1:\d+\/mcp is closed: closed by the client/);
  await server.stop();
});

test('an unreachable server fails alone, named; the agent keeps working with the others', T, async () => {
  const url = `http://127.0.0.1:${await freePort()}/mcp`;
  const notices = [];
  const agent = await createAgent({
    servers: { down: httpTransport(url), github: mockGithub() },
    onNotice: (n) => notices.push(n),
  });
  try {
    const byName = Object.fromEntries(agent.servers().map((s) => [s.name, s]));
    assert.equal(byName.down.status, 'failed');
    assert.match(byName.down.error, new RegExp(`could not reach the MCP server at ${url.replace(/[.]/g, '\\.')}: fetch failed.*ECONNREFUSED`));
    assert.ok(notices.some((n) => n.startsWith('MCP server down failed: could not reach')), notices.join('\n'));
    assert.equal(byName.github.status, 'connected');
    assert.ok(!agent.tools().some((t) => t.server === 'down'));
    assert.match(await agent.run('查看 vercel/ai 的 issues'), /#\d+/);
  } finally {
    agent.close();
  }
});

test('HTTP 401 fails the connection with the status and WWW-Authenticate in the error', T, async () => {
  const server = await recordingServer({ status: 401 });
  const agent = await createAgent({ servers: { locked: httpTransport(server.url, { headers: { Authorization: 'Bearer wrong' } }) } });
  try {
    const [status] = agent.servers();
    assert.equal(status.status, 'failed');
    assert.match(status.error, /HTTP 401 Unauthorized from POST http:\/\/127\.0\.0\.1:\d+\/mcp/);
    assert.match(status.error, /WWW-Authenticate: Bearer realm="recording"/);
    assert.match(status.error, /refused our credentials/);
    assert.equal(server.requests.length, 1, 'a 401 is not retried');
  } finally {
    agent.close();
    await server.stop();
  }
});

test('authorize supplies a token on 401, again when it expires; refused messages are re-sent', T, async () => {
  const server = await recordingServer({ token: 'first' });
  const asked = [];
  let next = 'first';
  const authorize = async (challenge) => {
    asked.push(challenge);
    await new Promise((resolve) => setTimeout(resolve, 20)); // a flow takes a while
    return next;
  };
  const agent = await createAgent({ servers: { locked: httpTransport(server.url, { authorize }) } });
  try {
    const [status] = agent.servers();
    assert.equal(status.status, 'connected', status.error);
    assert.deepEqual(asked, [{ url: server.url, status: 401, wwwAuthenticate: 'Bearer realm="recording"' }]);
    // The refused probe went out again with the token, and so did everything after it.
    const [refused, ...after] = server.requests;
    assert.equal(refused.headers.authorization, undefined);
    assert.equal(refused.body.method, 'server/discover');
    assert.deepEqual(after.slice(0, 2).map((r) => r.body.method), ['server/discover', 'initialize']);
    assert.ok(after.every((r) => r.headers.authorization === 'Bearer first'), JSON.stringify(after.map((r) => r.headers)));

    // The token expires: the call is refused, authorize is asked again, and the call completes.
    server.rotate('second');
    next = 'second';
    const result = await agent.callTool('mcp__locked__echo', { message: 'after expiry' });
    assert.equal(result.text, 'echo: after expiry');
    assert.equal(asked.length, 2);
    assert.equal(server.requests.at(-1).headers.authorization, 'Bearer second');
  } finally {
    agent.close();
    await server.stop();
  }
});

test('a slow authorize times out neither the handshake nor a call: timeouts wait for it', T, async () => {
  const server = await recordingServer({ token: 'first' });
  let next = 'first';
  let asked = 0;
  // The user takes three times as long as any timeout allows.
  const authorize = async () => {
    asked += 1;
    await new Promise((resolve) => setTimeout(resolve, 600));
    return next;
  };
  const agent = await createAgent({ servers: {} });
  try {
    const transport = httpTransport(server.url, { authorize });
    const status = await agent.connect('slow', transport, { timeoutMs: 200, toolTimeoutMs: 200 });
    assert.equal(status.status, 'connected', status.error);
    server.rotate('second');
    next = 'second';
    const result = await agent.callTool('mcp__slow__echo', { message: 'worth the wait' });
    assert.equal(result.isError, false, result.text);
    assert.equal(result.text, 'echo: worth the wait');
    assert.equal(asked, 2);
  } finally {
    agent.close();
    await server.stop();
  }
});

test('authorize failing, giving no token or a refused token fails that server, named', T, async () => {
  const server = await recordingServer({ token: 'right' });
  let wrongTries = 0;
  const agent = await createAgent({
    servers: {
      throws: httpTransport(server.url, { authorize: () => { throw new Error('the user closed the popup'); } }),
      empty: httpTransport(server.url, { authorize: async () => '' }),
      wrong: httpTransport(server.url, { authorize: async () => { wrongTries += 1; return 'wrong'; } }),
      github: mockGithub(),
    },
  });
  try {
    const byName = Object.fromEntries(agent.servers().map((s) => [s.name, s]));
    assert.equal(byName.throws.status, 'failed');
    assert.match(byName.throws.error, /authorization failed: authorize\(\) failed: the user closed the popup/);
    assert.equal(byName.empty.status, 'failed');
    assert.match(byName.empty.error, /authorize\(\) must give a non-empty access token string, gave a string ""/);
    assert.equal(byName.wrong.status, 'failed');
    assert.match(byName.wrong.error, /HTTP 401 Unauthorized from POST .* after 3 authorizations in a row: giving up/);
    assert.equal(wrongTries, 3);
    assert.equal(byName.github.status, 'connected', 'the other servers are unaffected');
  } finally {
    agent.close();
    await server.stop();
  }
});

test('a forgotten session (404) is replaced transparently and reported through onEvent', T, async () => {
  const server = await recordingServer({ getStatus: 500 });
  const events = [];
  const agent = await createAgent({ servers: { rec: httpTransport(server.url, { onEvent: (e) => events.push(e) }) } });
  try {
    assert.equal((await agent.callTool('mcp__rec__echo', { message: 'one' })).text, 'echo: one');
    server.expire();
    assert.equal((await agent.callTool('mcp__rec__echo', { message: 'two' })).text, 'echo: two');
    assert.ok(events.some((e) => e.type === 'session_expired' && e.sessionId === 'session-1'), JSON.stringify(events));
    // The GET stream answered 500: a warning, not a failure.
    assert.ok(events.some((e) => e.type === 'warning' && /no server-to-client stream: HTTP 500/.test(e.message)), JSON.stringify(events));
    const posts = server.requests.filter((r) => r.method === 'POST').map((r) => r.body.method ?? 'response');
    assert.deepEqual(posts.slice(-4, -2), ['tools/call', 'initialize']);
    assert.deepEqual(posts.slice(-2).sort(), ['notifications/initialized', 'tools/call']);
    const lastPost = server.requests.filter((r) => r.method === 'POST').at(-1);
    assert.equal(lastPost.headers['mcp-session-id'], 'session-2');
  } finally {
    agent.close();
    await server.stop();
  }
});

test('httpTransport rejects bad arguments with a TypeError naming the problem', () => {
  const bad = [
    [() => httpTransport(), /httpTransport: the URL must be a non-empty string, got undefined/],
    [() => httpTransport(42), /the URL must be a non-empty string, got the number 42/],
    [() => httpTransport('localhost:3001/mcp'), /invalid MCP server URL "localhost:3001\/mcp": the scheme must be http or https, got localhost/],
    [() => httpTransport('not a url'), /invalid MCP server URL "not a url": not an absolute URL/],
    [() => httpTransport('ftp://example.com/mcp'), /the scheme must be http or https, got ftp/],
    [() => httpTransport('http://x/mcp', { headers: 'Bearer x' }), /"headers" must be an object of strings, got a string/],
    [() => httpTransport('http://x/mcp', { headers: { 'X-N': 1 } }), /"headers" must be an object of strings: "X-N" is the number 1/],
    [() => httpTransport('http://x/mcp', { headers: { 'bad name': 'x' } }), /invalid HTTP header name "bad name"/],
    [() => httpTransport('http://x/mcp', { headers: { A: 'x\r\nB: y' } }), /invalid value for HTTP header "A": it contains a line break/],
    [() => httpTransport('http://x/mcp', { header: {} }), /unknown option "header" in options \(known: headers, fetch, onEvent, authorize\)/],
    [() => httpTransport('http://x/mcp', { fetch: 'yes' }), /"fetch" must be a function, got a string/],
    [() => httpTransport('http://x/mcp', { onEvent: {} }), /"onEvent" must be a function, got an object/],
    [() => httpTransport('http://x/mcp', { authorize: 'token' }), /"authorize" must be a function, got a string/],
  ];
  for (const [call, message] of bad) assert.throws(call, (e) => e instanceof TypeError && message.test(e.message));
  // Good ones do not throw (and send nothing until connected).
  httpTransport('https://example.com/mcp', { headers: { Authorization: 'Bearer x' } });
});

test('a custom fetch is used for every request', T, async () => {
  const server = await recordingServer();
  const seen = [];
  const agent = await createAgent({
    servers: {
      rec: httpTransport(server.url, {
        fetch: (url, init) => {
          seen.push(init.method);
          return fetch(url, init);
        },
      }),
    },
  });
  try {
    assert.equal(agent.servers()[0].status, 'connected');
    assert.deepEqual(seen.slice(0, 2), ['POST', 'POST']);
  } finally {
    agent.close();
  }
  await eventually(() => server.requests.some((r) => r.method === 'DELETE'), 5_000, 'the DELETE');
  await server.stop();
  assert.equal(seen.at(-1), 'DELETE');
  assert.deepEqual(seen.sort(), server.requests.map((r) => r.method).sort());
});
