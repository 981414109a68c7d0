// The on-demand wasm modules, loaded on first use in every runtime (on workerd: the compiled
// modules its entry imports): the tool_search index, and the Anthropic codec.
import { anthropic, createAgent } from 'agentwire';
import { assert, eventLog, test } from '../harness.mjs';

test('tool_search ranks free text with the index of the search module', async () => {
  let step = 0;
  const model = {
    async complete() {
      step += 1;
      if (step === 1) return { toolCalls: [{ id: 's1', name: 'tool_search', arguments: { query: 'list the open issues of a repository', limit: 3 } }] };
      return { text: 'done' };
    },
  };
  const agent = await createAgent({ model, toolSearch: 'on' });
  try {
    const log = eventLog();
    assert.equal(await agent.run('find a tool', { onEvent: log.onEvent }), 'done');
    const [search] = log.of('tool_search');
    assert.equal(search.results[0], 'mcp__github__list_issues', JSON.stringify(search.results));
    assert.ok(search.results.length > 1 && search.results.length <= 3, JSON.stringify(search.results));
  } finally {
    agent.close();
  }
});

test('anthropic() encodes and decodes with the Anthropic codec module', async () => {
  const sent = [];
  const fetch = async (url, init) => {
    sent.push({ url: String(url), body: JSON.parse(init.body) });
    const body = {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-test',
      content: [{ type: 'text', text: 'hello from claude' }],
      stop_reason: 'end_turn',
      usage: { input_tokens: 3, output_tokens: 4 },
    };
    return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
  };
  // The key is a test's own; in a browser page anthropic() refuses without this opt-in.
  const model = anthropic({ apiKey: 'sk-ant-test', model: 'claude-test', baseURL: 'http://127.0.0.1:9', stream: false, fetch, dangerouslyAllowBrowser: true });
  const agent = await createAgent({ model, servers: {} });
  try {
    assert.equal(await agent.run('hi'), 'hello from claude');
    assert.equal(sent.length, 1);
    assert.equal(sent[0].url, 'http://127.0.0.1:9/v1/messages');
    assert.equal(sent[0].body.model, 'claude-test');
    assert.equal(sent[0].body.messages[0].role, 'user');
  } finally {
    agent.close();
  }
});
