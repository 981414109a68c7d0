// MCP servers behind JS transports that misbehave, in every runtime: invalid JSON, silence,
// throws, a hang-up mid-session; and disconnect. Each fails alone; the agent keeps working.
import { createAgent, mockGithub } from 'agentwire';
import { assert, eventLog, test } from '../harness.mjs';
import { callOnceModel, minimalServer, scriptedTransport } from './scripted.mjs';

const ECHO_TOOL = { name: 'echo', description: 'Echoes', inputSchema: { type: 'object', properties: { message: { type: 'string' } } } };

test('a server that sends invalid JSON fails alone; the agent keeps working', async () => {
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

test('invalid JSON in answer to a tool call: the call fails, the server and the run go on', async () => {
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

test('a server that never answers times out in isolation', async () => {
  const silent = scriptedTransport(() => undefined);
  const agent = await createAgent({ servers: {} });
  try {
    const started = performance.now();
    const [slow, github] = await Promise.all([
      agent.connect('silent', silent, { timeoutMs: 200 }),
      agent.connect('github', mockGithub()),
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

test('a tool call that never returns times out; the run continues with an error result', async () => {
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

test('transports that throw become failed servers', async () => {
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

test('a server that hangs up mid-session is marked failed and its tools report it', async () => {
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

test('disconnect removes exactly that server and its tools; the name can be reused', async () => {
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
