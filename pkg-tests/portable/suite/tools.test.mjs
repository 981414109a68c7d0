// JS tools in every runtime: registration, the permission gate with approvals, failures, timeouts, direct calls.
import { createAgent } from 'agentwire';
import { assert, eventLog, test } from '../harness.mjs';

/** A weather tool the mock model calls for "weather in <city>"; records its calls. */
function weatherTool(overrides = {}) {
  const calls = [];
  const tool = {
    name: 'get_weather',
    description: 'Current weather for a city',
    inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    risk: 'network',
    execute: async (args, context) => {
      calls.push({ args, context });
      return `Sunny, 21°C in ${args.city}`;
    },
    ...overrides,
  };
  return { tool, calls };
}

test('a registered JS tool is listed with its source and risk', async () => {
  const agent = await createAgent({ servers: {} });
  try {
    const { tool } = weatherTool();
    agent.registerTool(tool);
    const [info] = agent.tools();
    assert.deepEqual(
      { name: info.name, source: info.source, risk: info.risk, description: info.description },
      { name: 'get_weather', source: 'builtin', risk: 'network', description: tool.description },
    );
    assert.deepEqual(info.inputSchema, tool.inputSchema);
    assert.equal(info.server, undefined);
    assert.equal(agent.unregisterTool('get_weather'), true);
    assert.equal(agent.unregisterTool('get_weather'), false);
    assert.deepEqual(agent.tools(), []);
  } finally {
    agent.close();
  }
});

test('an "ask" tool goes to onApproval; yes runs it', async () => {
  const agent = await createAgent({ servers: {} });
  try {
    const { tool, calls } = weatherTool();
    agent.registerTool(tool);
    const asked = [];
    const log = eventLog();
    const answer = await agent.run('weather in Paris', {
      onEvent: log.onEvent,
      onApproval: async (request) => {
        asked.push(request);
        return true;
      },
    });
    assert.equal(asked.length, 1);
    assert.equal(asked[0].name, 'get_weather');
    assert.equal(asked[0].risk, 'network');
    assert.deepEqual(asked[0].args, { city: 'Paris' });
    assert.deepEqual(log.types(), ['step_start', 'tool_start', 'approval_request', 'tool_end', 'step_start', 'model_text', 'done']);
    assert.equal(log.of('approval_request')[0].id, asked[0].id);
    assert.equal(calls.length, 1);
    assert.deepEqual(calls[0].args, { city: 'Paris' });
    assert.equal(calls[0].context.name, 'get_weather');
    assert.ok(calls[0].context.signal instanceof AbortSignal);
    assert.match(answer, /Sunny, 21°C in Paris/);
  } finally {
    agent.close();
  }
});

test('without onApproval, or when it says no or throws, the call is declined', async () => {
  for (const onApproval of [undefined, () => false, () => 'no', () => { throw new Error('UI crashed'); }]) {
    const agent = await createAgent({ servers: {} });
    try {
      const { tool, calls } = weatherTool();
      agent.registerTool(tool);
      const log = eventLog();
      const answer = await agent.run('weather in Paris', { onEvent: log.onEvent, onApproval });
      assert.equal(calls.length, 0, 'the tool must not run');
      const [end] = log.of('tool_end');
      assert.equal(end.ok, false);
      assert.match(end.output, /declin/i);
      assert.equal(typeof answer, 'string');
    } finally {
      agent.close();
    }
  }
});

test('"always" stops asking for that tool for the rest of the session', async () => {
  const agent = await createAgent({ servers: {} });
  try {
    const { tool, calls } = weatherTool();
    agent.registerTool(tool);
    let asked = 0;
    const onApproval = () => {
      asked += 1;
      return 'always';
    };
    await agent.run('weather in Paris', { onApproval });
    await agent.run('weather in Tokyo', { onApproval });
    assert.equal(asked, 1);
    assert.deepEqual(calls.map((c) => c.args.city), ['Paris', 'Tokyo']);
  } finally {
    agent.close();
  }
});

test('allow and deny patterns decide without asking; options left out keep their defaults', async () => {
  const allowed = await createAgent({ servers: {}, allow: ['get_weather'] });
  const denied = await createAgent({ deny: ['get_weather', 'mcp__github__list_issues'] });
  try {
    const a = weatherTool();
    allowed.registerTool(a.tool);
    let asked = 0;
    await allowed.run('weather in Paris', { onApproval: () => ++asked && true });
    assert.equal(asked, 0);
    assert.equal(a.calls.length, 1);

    const d = weatherTool();
    denied.registerTool(d.tool);
    const log = eventLog();
    await denied.run('weather in Paris', { onEvent: log.onEvent, onApproval: () => ++asked && true });
    assert.equal(asked, 0);
    assert.equal(d.calls.length, 0);
    assert.match(log.of('tool_end')[0].output, /deny get_weather/);
    // deny given, allow left out: reads of other tools still run by default.
    assert.equal((await denied.callTool('mcp__github__get_issue', { owner: 'vercel', repo: 'ai', issue_number: 6241 })).isError, false);
    await assert.throws(() => denied.callTool('mcp__github__list_issues', { owner: 'vercel', repo: 'ai' }), Error, /denied by permission rule `deny mcp__github__list_issues`/);
    await assert.throws(() => denied.callTool('get_weather', { city: 'Oslo' }), Error, /denied/);
  } finally {
    allowed.close();
    denied.close();
  }
});

test('a throwing tool becomes an error result; the run goes on', async () => {
  const agent = await createAgent({ servers: {}, allow: ['get_weather'] });
  try {
    agent.registerTool(weatherTool({ execute: () => { throw new Error('weather service down'); } }).tool);
    const log = eventLog();
    const answer = await agent.run('weather in Paris', { onEvent: log.onEvent });
    const [end] = log.of('tool_end');
    assert.equal(end.ok, false);
    assert.match(end.output, /weather service down/);
    assert.equal(log.types().at(-1), 'done');
    assert.equal(typeof answer, 'string');
    // And it still works afterwards.
    assert.equal(agent.tools().length, 1);
  } finally {
    agent.close();
  }
});

test('a tool that never settles times out and its signal is aborted', async () => {
  const agent = await createAgent({ servers: {}, allow: ['*'] });
  try {
    let signal;
    agent.registerTool(weatherTool({ timeoutMs: 100, execute: (_args, ctx) => { signal = ctx.signal; return new Promise(() => {}); } }).tool);
    const log = eventLog();
    await agent.run('weather in Paris', { onEvent: log.onEvent });
    const [end] = log.of('tool_end');
    assert.equal(end.ok, false);
    assert.match(end.output, /did not answer within 100 ms/);
    assert.equal(signal.aborted, true);
  } finally {
    agent.close();
  }
});

test('callTool calls one tool directly: no approval asked, audited, results shaped', async () => {
  const audit = [];
  const agent = await createAgent({ servers: {}, onAudit: (r) => audit.push(r) });
  try {
    const { tool, calls } = weatherTool();
    agent.registerTool(tool);
    const text = await agent.callTool('get_weather', { city: 'Oslo' });
    assert.deepEqual(
      { isError: text.isError, text: text.text, truncated: text.truncated, content: text.content },
      { isError: false, text: 'Sunny, 21°C in Oslo', truncated: false, content: [{ type: 'text', text: 'Sunny, 21°C in Oslo' }] },
    );
    assert.equal(calls.length, 1);

    agent.registerTool({ name: 'stats', risk: 'read', execute: () => ({ count: 3, items: ['a'] }) });
    const structured = await agent.callTool('stats');
    assert.deepEqual(structured.structuredContent, { count: 3, items: ['a'] });
    assert.deepEqual(JSON.parse(structured.text), { count: 3, items: ['a'] });

    agent.registerTool({ name: 'mcp_shaped', risk: 'read', execute: () => ({ content: [{ type: 'text', text: 'bad' }], isError: true }) });
    assert.equal((await agent.callTool('mcp_shaped')).isError, true);

    agent.registerTool({ name: 'long', risk: 'read', maxOutputChars: 10, execute: () => 'x'.repeat(100) });
    const long = await agent.callTool('long');
    assert.equal(long.truncated, true);
    assert.equal(long.content[0].text.length, 100);

    assert.deepEqual(audit.map((r) => [r.tool, r.outcome]).slice(0, 2), [['get_weather', 'ok'], ['stats', 'ok']]);
    assert.equal(audit.length, 4);
    await assert.throws(() => agent.callTool('no_such_tool'), Error, /unknown tool "no_such_tool"/);
  } finally {
    agent.close();
  }
});

test('tools given to createAgent are registered; the model sees them', async () => {
  const seen = [];
  const model = {
    complete: async (request) => {
      seen.push(request.tools.map((t) => t.name));
      return { text: 'fine' };
    },
  };
  const { tool } = weatherTool();
  const agent = await createAgent({ servers: {}, tools: [tool], model });
  try {
    assert.equal(await agent.run('hi'), 'fine');
    assert.deepEqual(seen, [['get_weather']]);
  } finally {
    agent.close();
  }
});
