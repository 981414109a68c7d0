// The agent itself, identical in every runtime: the mock run, a JS transport, JS tools, bad input.
import { createAgent, httpTransport, mockGithub, openaiCodec } from 'agentwire';
import { assert, eventLog, test } from '../harness.mjs';

test('mock model + mock GitHub: 查看 vercel/ai 的 issues runs list_issues and answers', async () => {
  const agent = await createAgent();
  try {
    const log = eventLog();
    const answer = await agent.run('查看 vercel/ai 的 issues', { onEvent: log.onEvent });
    assert.deepEqual(log.types(), ['step_start', 'tool_start', 'tool_end', 'step_start', 'model_text', 'done']);
    assert.equal(log.of('tool_start')[0].name, 'mcp__github__list_issues');
    assert.match(answer, /^vercel\/ai 的 issue（共 \d+ 个）/);
  } finally {
    agent.close();
  }
});

test('a JS transport (an object with send/onMessage) bridges an MCP server', async () => {
  const mock = mockGithub();
  const sent = [];
  const bridge = {
    send: (line) => {
      sent.push(JSON.parse(line).method);
      mock.send(line);
    },
    onMessage: (callback) => mock.onMessage(callback),
  };
  const agent = await createAgent({ servers: { gh: bridge } });
  try {
    assert.equal(agent.servers()[0].status, 'connected');
    assert.ok(sent.includes('initialize') && sent.includes('tools/list'), `sent: ${sent}`);
    const result = await agent.callTool('mcp__gh__list_issues', { owner: 'vercel', repo: 'ai' });
    assert.equal(result.isError, false, result.text);
  } finally {
    agent.close();
  }
});

test('a JS tool asks for approval and its result reaches the model', async () => {
  const agent = await createAgent({ servers: {} });
  try {
    agent.registerTool({ name: 'get_weather', risk: 'network', execute: ({ city }) => `rain in ${city}` });
    const asked = [];
    const log = eventLog();
    const answer = await agent.run('weather in Paris', { onEvent: log.onEvent, onApproval: (r) => asked.push(r.name) > 0 });
    assert.deepEqual(asked, ['get_weather']);
    assert.match(answer, /rain in Paris/);
    assert.equal(log.of('tool_end')[0].ok, true);
  } finally {
    agent.close();
  }
});

test('bad input is a TypeError naming the culprit', async () => {
  await assert.throws(() => httpTransport(42), TypeError, /httpTransport/);
  await assert.throws(() => createAgent({ servers: 'github' }), TypeError, /servers/);
  const agent = await createAgent({ servers: {} });
  try {
    await assert.throws(() => agent.registerTool({ name: 'x', execute: 'nope' }), TypeError, /execute/);
  } finally {
    agent.close();
  }
});

test('openaiCodec encodes a request body without a model or network', async () => {
  const body = openaiCodec.encodeRequest({ system: '', messages: [{ role: 'user', content: 'hi' }], tools: [] }, { model: 'm' });
  assert.equal(body.model, 'm');
  assert.deepEqual(body.messages.at(-1), { role: 'user', content: 'hi' });
});
