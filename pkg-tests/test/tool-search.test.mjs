// Deferred tool loading through the npm API: toolSearch, ConnectOptions.defer, the search
// callback, the tool_search event, and what agent.tools() says about loading.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createAgent, mockGithub } from 'agentwire';
import { eventLog } from './helpers.mjs';

const PROMPT = '查看 vercel/ai 的 issues';
const github = (agent) => agent.tools().filter((t) => t.server === 'github');

test("toolSearch: 'on' defers the MCP tools; the mock model searches, calls, answers in 3 steps", async () => {
  const agent = await createAgent({ toolSearch: 'on' });
  try {
    const tools = github(agent);
    assert.ok(tools.length > 5);
    assert.ok(tools.every((t) => t.loading === 'deferred' && Number.isInteger(t.estimatedTokens) && t.estimatedTokens > 20));
    const log = eventLog();
    const answer = await agent.run(PROMPT, { onEvent: log.onEvent });
    assert.match(answer, /#6241/);
    assert.equal(log.of('step_start').length, 3);
    assert.deepEqual(log.of('tool_search'), [{ type: 'tool_search', query: 'select:mcp__github__list_issues', results: ['mcp__github__list_issues'] }]);
    assert.deepEqual(log.of('tool_start').map((e) => e.name), ['tool_search', 'mcp__github__list_issues']);
    assert.equal(log.of('done')[0].steps, 3);
  } finally {
    agent.close();
  }
});

test('by default (auto) the small mock server stays direct; off, thresholds and contextWindow decide', async () => {
  const cases = [
    [undefined, 'direct'],
    ['off', 'direct'],
    ['auto', 'direct'],
    [{ mode: 'auto', threshold: 100 }, 'deferred'],
    [{ threshold: 100000 }, 'direct'],
  ];
  for (const [toolSearch, want] of cases) {
    const agent = await createAgent({ toolSearch });
    try {
      assert.ok(github(agent).every((t) => t.loading === want), `${JSON.stringify(toolSearch)} → ${want}`);
    } finally {
      agent.close();
    }
  }
  // 10% of a 10,000-token window is below the mock server's ~1,350 tokens.
  const small = await createAgent({ contextWindow: 10000 });
  try {
    assert.ok(github(small).every((t) => t.loading === 'deferred'));
  } finally {
    small.close();
  }
});

test('requestTokens() counts what a request carries: less when deferred', async () => {
  const off = await createAgent({ toolSearch: 'off' });
  const on = await createAgent({ toolSearch: 'on' });
  try {
    // Every direct definition: the mock server's tools and the two resource tools it brings.
    const direct = off.tools().filter((t) => t.loading === 'direct').reduce((sum, t) => sum + t.estimatedTokens, 0);
    assert.ok(direct > github(off).reduce((sum, t) => sum + t.estimatedTokens, 0));
    assert.equal(off.requestTokens(), direct, 'off: exactly the direct definitions');
    assert.ok(on.requestTokens() > 0 && on.requestTokens() < direct, `${on.requestTokens()} < ${direct}`);
  } finally {
    off.close();
    on.close();
  }
});

test('ConnectOptions.defer and alwaysLoad, and toolSearch.alwaysLoad', async () => {
  const agent = await createAgent({ servers: {}, toolSearch: { mode: 'on', alwaysLoad: ['mcp__pinned__get_issue'] } });
  try {
    await agent.connect('never', mockGithub(), { defer: false });
    await agent.connect('some', mockGithub(), { alwaysLoad: ['list_issues'] });
    await agent.connect('pinned', mockGithub());
    const loading = Object.fromEntries(agent.tools().map((t) => [t.name, t.loading]));
    assert.equal(loading.mcp__never__list_issues, 'direct');
    assert.equal(loading.mcp__never__get_issue, 'direct');
    assert.equal(loading.mcp__some__list_issues, 'direct');
    assert.equal(loading.mcp__some__get_issue, 'deferred');
    assert.equal(loading.mcp__pinned__get_issue, 'direct');
    assert.equal(loading.mcp__pinned__list_issues, 'deferred');
  } finally {
    agent.close();
  }
  const always = await createAgent({ servers: {} });
  try {
    await always.connect('github', mockGithub(), { defer: true });
    assert.ok(github(always).every((t) => t.loading === 'deferred'), 'deferred even below the threshold');
  } finally {
    always.close();
  }
});

/** A model that searches for `query`, calls the first tool found through call_tool, answers. */
function searchingModel(query) {
  const requests = [];
  return {
    requests,
    async complete(request) {
      requests.push(structuredClone(request));
      const last = request.messages.at(-1);
      if (last.role === 'user') return { toolCalls: [{ id: 's1', name: 'tool_search', arguments: { query } }] };
      if (last.toolCallId === 's1') {
        const found = /"name":"(mcp__[^"]+)"/.exec(last.content)[1];
        return { toolCalls: [{ id: 'c1', name: 'call_tool', arguments: { name: found, arguments: { owner: 'vercel', repo: 'ai' } } }] };
      }
      return { text: `done: ${last.content.length}` };
    },
  };
}

test('toolSearch.search ranks with the index: called with the query and the deferred catalog', async () => {
  const calls = [];
  const model = searchingModel('the backlog of tickets');
  const agent = await createAgent({
    model,
    toolSearch: {
      mode: 'on',
      search: async (query, catalog) => {
        calls.push({ query, names: catalog.map((t) => t.name), schema: catalog[0].inputSchema });
        return ['mcp__github__list_issues'];
      },
    },
  });
  try {
    const log = eventLog();
    await agent.run('what is open?', { onEvent: log.onEvent });
    assert.equal(calls.length, 1);
    assert.equal(calls[0].query, 'the backlog of tickets');
    assert.deepEqual(calls[0].names.sort(), github(agent).map((t) => t.name).sort());
    assert.equal(calls[0].schema.type, 'object');
    const [search] = log.of('tool_search');
    assert.equal(search.results[0], 'mcp__github__list_issues');
    // The tools sent never changed, and the found tool ran under its own name.
    const tools = model.requests.map((r) => JSON.stringify(r.tools));
    assert.equal(new Set(tools).size, 1);
    assert.deepEqual(JSON.parse(tools[0]).map((t) => t.name).slice(-2), ['tool_search', 'call_tool']);
    assert.deepEqual(log.of('tool_start').map((e) => e.name), ['tool_search', 'mcp__github__list_issues']);
    assert.ok(log.of('tool_end').every((e) => e.ok));
  } finally {
    agent.close();
  }
});

test('a search callback that throws leaves the index to answer and says so', async () => {
  const notices = [];
  const agent = await createAgent({
    model: searchingModel('list issues'),
    onNotice: (m) => notices.push(m),
    toolSearch: { mode: 'on', search: () => { throw new Error('embeddings offline'); } },
  });
  try {
    const log = eventLog();
    await agent.run('what is open?', { onEvent: log.onEvent });
    assert.equal(log.of('tool_search')[0].results[0], 'mcp__github__list_issues');
    assert.ok(notices.some((m) => /toolSearch\.search failed \(embeddings offline\)/.test(m)), notices.join('\n'));
    const bad = await createAgent({ model: searchingModel('list issues'), toolSearch: { mode: 'on', search: async () => 'nope' } });
    try {
      await bad.run('x');
      assert.equal(bad.history().entries.length, 6, 'search, call, answer');
    } finally {
      bad.close();
    }
  } finally {
    agent.close();
  }
});

test('bad toolSearch and defer options are refused, naming the culprit', async () => {
  const refused = [
    [{ toolSearch: 'sometimes' }, /toolSearch\.mode must be one of auto, on, off/],
    [{ toolSearch: 3 }, /"toolSearch" must be 'auto', 'on', 'off' or an object/],
    [{ toolSearch: { mode: 'on', threshold: 10 } }, /threshold only applies to mode 'auto'/],
    [{ toolSearch: { reveal: 'inline' } }, /toolSearch\.reveal must be one of bridge, append/],
    [{ toolSearch: { limit: 0 } }, /"toolSearch\.limit" must be a whole number of at least 1/],
    [{ toolSearch: { search: 'embeddings' } }, /"toolSearch\.search" must be a function/],
    [{ toolSearch: { depth: 2 } }, /unknown option "depth" in "toolSearch"/],
    [{ contextWindow: -5 }, /"contextWindow" must be a whole number of at least 1/],
  ];
  for (const [options, message] of refused) {
    await assert.rejects(createAgent(options), message, JSON.stringify(options));
  }
  const agent = await createAgent({ servers: {} });
  try {
    await assert.rejects(agent.connect('x', mockGithub(), { defer: 'yes' }), /"defer" must be true, false or 'auto'/);
  } finally {
    agent.close();
  }
});

test("reveal: 'append' adds found tools to the request's tools", async () => {
  const model = searchingModel('list issues');
  const agent = await createAgent({ model, toolSearch: { mode: 'on', reveal: 'append' } });
  try {
    await agent.run('what is open?');
    const names = model.requests.map((r) => r.tools.map((t) => t.name));
    assert.ok(!names[0].includes('mcp__github__list_issues'));
    assert.ok(names[1].includes('mcp__github__list_issues'));
  } finally {
    agent.close();
  }
});
