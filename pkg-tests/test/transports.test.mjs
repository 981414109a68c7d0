// MCP servers behind JS transports: a real stdio server bridged by hand and through
// stdioTransport, and servers that misbehave (invalid JSON, silence, throws, exits).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createAgent } from 'agentwire';
import { stdioTransport } from 'agentwire/node';
import { bridgeToProcess, eventLog, everythingServer, minimalServer, scriptedTransport } from './helpers.mjs';

const T = { timeout: 60_000 };
const ECHO_TOOL = { name: 'echo', description: 'Echoes', inputSchema: { type: 'object', properties: { message: { type: 'string' } } } };

/** A model that calls `tool` with `args` once, then answers with the tool's output. */
function callOnceModel(tool, args) {
  const requests = [];
  return {
    requests,
    async complete(request) {
      requests.push(request);
      const last = request.messages.at(-1);
      if (last.role === 'tool') return { text: `tool said: ${last.content}` };
      return { toolCalls: [{ id: `call_${requests.length}`, name: tool, arguments: args }] };
    },
  };
}

test('a hand-written JS transport bridging a real stdio MCP server (server-everything)', T, async () => {
  const { command, args } = everythingServer();
  const bridge = bridgeToProcess(command, args);
  const model = callOnceModel('mcp__everything__echo', { message: 'hello through the bridge' });
  const agent = await createAgent({ servers: { everything: bridge }, model });
  try {
    const [status] = agent.servers();
    assert.equal(status.status, 'connected', status.error);
    assert.match(status.serverInfo.name, /everything/i);
    const names = agent.tools().map((t) => t.name);
    assert.ok(names.includes('mcp__everything__echo'), names.join(', '));
    assert.ok(names.includes('mcp__everything__get-sum'));
    assert.equal(JSON.parse(bridge.sent[0]).method, 'initialize');

    const log = eventLog();
    const answer = await agent.run('echo something', { onEvent: log.onEvent });
    assert.match(answer, /hello through the bridge/);
    // server-everything announces its tool list at start-up; the run applies that first.
    assert.deepEqual(log.of('notice').map((e) => e.message), ['MCP server everything changed its tools: now ' + names.filter((n) => n.startsWith('mcp__')).length]);
    // The same re-list also reaches onEvent as one tools_changed event.
    assert.equal(log.of('tools_changed').length, 1);
    assert.deepEqual(log.types().filter((t) => t !== 'notice' && t !== 'tools_changed'), ['step_start', 'tool_start', 'tool_end', 'step_start', 'model_text', 'done']);
    assert.equal(log.of('tool_end')[0].ok, true);
    // The model was offered the server's tools with their schemas.
    const offered = model.requests[0].tools.find((t) => t.name === 'mcp__everything__echo');
    assert.equal(offered.inputSchema.type, 'object');

    const sum = await agent.callTool('mcp__everything__get-sum', { a: 2, b: 40 });
    assert.equal(sum.isError, false);
    assert.match(sum.text, /42/);
  } finally {
    agent.close();
  }
  // close() reached the host's transport: the bridged process goes away.
  await new Promise((resolve) => (bridge.child.exitCode !== null || bridge.child.signalCode ? resolve() : bridge.child.once('exit', resolve)));
});

test('stdioTransport runs the same server as a child process, with env', T, async () => {
  const { command, args } = everythingServer();
  const stderr = [];
  const transport = stdioTransport(command, args, { env: { AGENTWIRE_PKG_TEST: 'stdio-env-ok' }, onStderr: (l) => stderr.push(l) });
  const agent = await createAgent({ servers: { everything: transport } });
  try {
    const [status] = agent.servers();
    assert.equal(status.status, 'connected', status.error);
    const echo = await agent.callTool('mcp__everything__echo', { message: 'over stdio' });
    assert.equal(echo.isError, false);
    assert.match(echo.text, /over stdio/);
    const env = await agent.callTool('mcp__everything__get-env', {});
    assert.match(env.text, /stdio-env-ok/);
    // The mock GitHub server is not connected here: servers were given explicitly.
    assert.ok(!agent.tools().some((t) => t.server === 'github'));
  } finally {
    agent.close();
  }
});

test('stdioTransport splits stdout into lines however it is chunked: CRLF, blank lines, a line across writes', T, async () => {
  // The child writes `one\r\n`, a blank and a whitespace-only line and the start of `two` in
  // one write, then the rest of `two` (CRLF-ended) and `three` in a second write.
  const script = [
    "process.stdout.write('one\\r\\n\\n \\t\\ntw');",
    "setTimeout(() => process.stdout.write('o\\r\\nthree\\n'), 100);",
    "process.stdin.on('end', () => process.exit(0)).resume();",
  ].join('\n');
  const transport = stdioTransport(process.execPath, ['-e', script]);
  const lines = [];
  const done = new Promise((resolve) => {
    transport.onMessage((line) => {
      lines.push(line);
      if (lines.length === 3) resolve();
    });
  });
  try {
    await done;
    assert.deepEqual(lines, ['one', 'two', 'three']);
  } finally {
    transport.close();
  }
});

test('stdioTransport: a command that does not exist is a failed server, not a crash', T, async () => {
  const notices = [];
  const agent = await createAgent({
    servers: { missing: stdioTransport('agentwire-no-such-command-xyz', []) },
    onNotice: (m) => notices.push(m),
  });
  try {
    const github = agent.servers().find((s) => s.name === 'github');
    assert.equal(github, undefined);
    const [missing] = agent.servers();
    assert.equal(missing.status, 'failed');
    assert.match(missing.error, /could not run agentwire-no-such-command-xyz.*ENOENT/);
    assert.ok(notices.some((n) => n.includes('missing')));
  } finally {
    agent.close();
  }
});

test('a server that sends invalid JSON fails alone; the agent keeps working', T, async () => {
  const garbage = scriptedTransport(() => 'this is not json {');
  const agent = await createAgent();
  try {
    const status = await agent.connect('broken', garbage, { timeoutMs: 300 });
    assert.equal(status.status, 'failed');
    assert.match(status.error, /initialize within 300 ms/);
    assert.match(status.error, /not JSON-RPC.*this is not json/);
    assert.equal(garbage.closed, true, 'the transport was closed');
    assert.ok(!agent.tools().some((t) => t.name.startsWith('mcp__broken')));
    // The rest still works.
    assert.match(await agent.run('查看 vercel/ai 的 issues'), /#\d+/);
  } finally {
    agent.close();
  }
});

test('invalid JSON in answer to a tool call: the call fails, the server and the run go on', T, async () => {
  let answered = 0;
  const transport = scriptedTransport(
    minimalServer([ECHO_TOOL], (m) => (++answered === 1 ? '{"jsonrpc":"2.0","id":' : { jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: 'second try ok' }] } })),
  );
  const agent = await createAgent({ servers: { s: transport }, toolTimeoutMs: 300 });
  try {
    const first = await agent.callTool('mcp__s__echo', { message: 'x' });
    assert.equal(first.isError, true);
    assert.match(first.error, /timed out/);
    const log = agent.servers()[0].log.join('\n');
    assert.match(log, /protocol error/);
    const second = await agent.callTool('mcp__s__echo', { message: 'y' });
    assert.equal(second.text, 'second try ok');
  } finally {
    agent.close();
  }
});

test('a server that never answers times out in isolation', T, async () => {
  const silent = scriptedTransport(() => undefined);
  const agent = await createAgent({ servers: {} });
  try {
    const started = performance.now();
    const [slow, github] = await Promise.all([
      agent.connect('silent', silent, { timeoutMs: 200 }),
      agent.connect('github', (await import('agentwire')).mockGithub()),
    ]);
    assert.equal(github.status, 'connected');
    assert.equal(slow.status, 'failed');
    assert.match(slow.error, /did not answer initialize within 200 ms/);
    assert.ok(performance.now() - started < 5_000);
    assert.match(await agent.run('查看 vercel/ai 的 issues'), /#\d+/);
  } finally {
    agent.close();
  }
});

test('a tool call that never returns times out; the run continues with an error result', T, async () => {
  const transport = scriptedTransport(minimalServer([ECHO_TOOL], () => undefined));
  const model = callOnceModel('mcp__hang__echo', { message: 'anyone?' });
  const agent = await createAgent({ servers: {}, model });
  try {
    assert.equal((await agent.connect('hang', transport, { toolTimeoutMs: 150 })).status, 'connected');
    assert.equal(agent.tools()[0].timeoutMs, 150);
    const log = eventLog();
    const answer = await agent.run('call it', { onEvent: log.onEvent });
    const [end] = log.of('tool_end');
    assert.equal(end.ok, false);
    assert.match(end.output, /did not answer within 150 ms/);
    assert.match(answer, /tool said: .*did not answer within 150 ms/);
    // The server was told to stop working on it.
    assert.ok(transport.received.some((m) => m.method === 'notifications/cancelled'));
  } finally {
    agent.close();
  }
});

test('transports that throw become failed servers', T, async () => {
  const throwsOnSend = {
    send() {
      throw new Error('pipe is broken');
    },
    onMessage() {},
  };
  const throwsOnStart = {
    send() {},
    onMessage() {
      throw new Error('cannot listen');
    },
  };
  const agent = await createAgent({ servers: { a: throwsOnSend, b: throwsOnStart } });
  try {
    const byName = Object.fromEntries(agent.servers().map((s) => [s.name, s]));
    assert.equal(byName.a.status, 'failed');
    assert.match(byName.a.error, /send\(\) threw: pipe is broken/);
    assert.equal(byName.b.status, 'failed');
    assert.match(byName.b.error, /failed to start: cannot listen/);
    assert.deepEqual(agent.tools(), []);
    assert.match(await agent.run('hello'), /.+/);
  } finally {
    agent.close();
  }
});

test('a server that hangs up mid-session is marked failed and its tools report it', T, async () => {
  const transport = scriptedTransport(minimalServer([ECHO_TOOL], () => undefined));
  const notices = [];
  const agent = await createAgent({ servers: { s: transport }, onNotice: (m) => notices.push(m) });
  try {
    assert.equal(agent.servers()[0].status, 'connected');
    const pending = agent.callTool('mcp__s__echo', { message: 'x' });
    setTimeout(() => transport.hangUp('the host killed it'), 20);
    const result = await pending;
    assert.equal(result.isError, true);
    assert.match(result.error, /the host killed it/);
    // The next run notices the closed server.
    await agent.run('hello');
    assert.equal(agent.servers()[0].status, 'failed');
    assert.ok(notices.some((n) => /disconnected: the host killed it/.test(n)), notices.join('\n'));
  } finally {
    agent.close();
  }
});

test('disconnect removes exactly that server and its tools; the name can be reused', T, async () => {
  const { mockGithub } = await import('agentwire');
  const agent = await createAgent();
  try {
    const second = await agent.connect('gh2', mockGithub(), { toolTimeoutMs: 5_000, maxOutputChars: 1_000 });
    assert.equal(second.status, 'connected');
    const gh2 = agent.tools().filter((t) => t.server === 'gh2');
    assert.equal(gh2.length, second.tools);
    assert.ok(gh2.every((t) => t.name.startsWith('mcp__gh2__') && t.timeoutMs === 5_000 && t.maxOutputChars === 1_000));
    assert.equal(agent.disconnect('gh2'), true);
    assert.equal(agent.disconnect('gh2'), false);
    assert.deepEqual(agent.servers().map((s) => s.name), ['github']);
    const mcp = agent.tools().filter((t) => t.name.startsWith('mcp__'));
    assert.ok(mcp.length > 0 && mcp.every((t) => t.server === 'github'), mcp.map((t) => t.name).join(', '));
    assert.equal((await agent.connect('gh2', mockGithub())).status, 'connected');
  } finally {
    agent.close();
  }
});

test('roots are offered to every server; server-everything lists them', T, async () => {
  const { command, args } = everythingServer();
  const agent = await createAgent({
    servers: { everything: stdioTransport(command, args) },
    roots: ['file:///home/project', { uri: 'file:///srv/my%20data', name: 'my data' }],
  });
  try {
    const [status] = agent.servers();
    assert.equal(status.status, 'connected', status.error);
    const result = await agent.callTool('mcp__everything__get-roots-list', {});
    assert.equal(result.isError, false, result.text);
    assert.match(result.text, /file:\/\/\/home\/project/);
    assert.match(result.text, /my data[\s\S]*file:\/\/\/srv\/my%20data/);
  } finally {
    agent.close();
  }
});

test('a server allowed to sample uses the agent\'s model in the middle of its tool call', T, async () => {
  const { command, args } = everythingServer();
  const tool = 'mcp__everything__trigger-sampling-request';
  const allowed = await createAgent({
    servers: { everything: stdioTransport(command, args) },
    sampling: ['everything'],
    allow: [tool],
  });
  try {
    const result = await allowed.callTool(tool, { prompt: 'list the issues of vercel/ai' });
    assert.equal(result.isError, false, result.text);
    // The mock model's answer, about the prompt the server sent, came back through the server.
    assert.match(result.text, /LLM sampling result/);
    assert.match(result.text, /list_issues/);
  } finally {
    allowed.close();
  }
  // Without it the capability is not declared, so server-everything offers no such tool.
  const other = await createAgent({ servers: { everything: stdioTransport(command, args) } });
  try {
    assert.ok(!other.tools().some((t) => t.name === tool), 'no sampling tool without consent');
  } finally {
    other.close();
  }
});
