// MCP servers behind JS transports in Node: a real stdio server bridged by hand and through
// stdioTransport (misbehaving JS transports: portable/suite/transports.test.mjs).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createAgent } from 'agentwire';
import { stdioTransport } from 'agentwire/node';
import { bridgeToProcess, eventLog, everythingServer } from './helpers.mjs';
import { callOnceModel } from '../portable/suite/scripted.mjs';

const T = { timeout: 60_000 };

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
    // `protocol` defaults to auto: a server/discover probe in the modern envelope, which this
    // legacy server (TypeScript SDK 1.x) refuses, then initialize; the status says which era.
    const [probe, opening] = bridge.sent.slice(0, 2).map((line) => JSON.parse(line));
    assert.equal(probe.method, 'server/discover');
    assert.equal(probe.params._meta['io.modelcontextprotocol/protocolVersion'], '2026-07-28');
    assert.equal(opening.method, 'initialize');
    assert.equal(status.era, 'legacy');
    assert.equal(status.protocolVersion, opening.params.protocolVersion);

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

test('stdioTransport runs the same server as a child process, with env and none of the host\'s secrets', T, async () => {
  const { command, args } = everythingServer();
  const stderr = [];
  // A secret in the host's environment, as a model key would be: the server did not ask for it.
  process.env.AGENTWIRE_PKG_TEST_HOST_SECRET = 'sk-host-secret-never-to-a-server';
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
    // The short environment the CLI gives servers, and nothing else of the host's.
    assert.match(env.text, /"PATH"/);
    assert.doesNotMatch(env.text, /sk-host-secret|AGENTWIRE_PKG_TEST_HOST_SECRET/);
    // The mock GitHub server is not connected here: servers were given explicitly.
    assert.ok(!agent.tools().some((t) => t.server === 'github'));
  } finally {
    agent.close();
    delete process.env.AGENTWIRE_PKG_TEST_HOST_SECRET;
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

test('a real stdio server\'s notifications/progress reach onEvent as tool_progress while the call runs', T, async () => {
  const { command, args } = everythingServer();
  const tool = 'mcp__everything__trigger-long-running-operation';
  const model = callOnceModel(tool, { duration: 1.2, steps: 3 });
  const agent = await createAgent({ servers: { everything: stdioTransport(command, args) }, model, allow: [tool] });
  try {
    const log = eventLog();
    await agent.run('run the long operation', { onEvent: log.onEvent });
    const types = log.types().filter((t) => t.startsWith('tool_'));
    assert.equal(types[0], 'tool_start', types.join(', '));
    assert.equal(types.at(-1), 'tool_end', types.join(', '));
    const progress = log.of('tool_progress');
    const [start] = log.of('tool_start');
    // One a step (0.4 s apart, more than the 250 ms between two of a call); the last may come
    // with the result, which then ends the call first.
    assert.deepEqual(progress.slice(0, 2).map((e) => [e.progress, e.total]), [[1, 3], [2, 3]], JSON.stringify(progress));
    for (const event of progress) {
      assert.equal(event.id, start.id);
      assert.equal(event.name, tool);
      assert.equal(event.server, 'everything');
      assert.equal('message' in event, false, 'server-everything sends none');
    }
    assert.equal(log.of('tool_end')[0].ok, true);
  } finally {
    agent.close();
  }
});
