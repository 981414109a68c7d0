// Conversations that survive restarts: history() as versioned plain JSON, restored with
// createAgent({ history }) or setHistory(), validated with TypeErrors naming the field.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createAgent } from 'agentwire';

const PROMPT = '查看 vercel/ai 的 issues';

test('a conversation saved after a tool call is restored into a new agent and continues', async () => {
  const first = await createAgent();
  let saved;
  try {
    await first.run(PROMPT);
    saved = JSON.parse(JSON.stringify(first.history())); // through text, as a file or KV store would
  } finally {
    first.close();
  }
  assert.equal(saved.version, 1);
  assert.deepEqual(saved.messages.map((m) => m.role), ['user', 'assistant', 'tool', 'assistant']);
  assert.equal(saved.messages[1].toolCalls[0].name, 'mcp__github__list_issues');

  const second = await createAgent({ history: saved });
  try {
    assert.deepEqual(second.history(), saved);
    const seen = [];
    const model = second; // the mock model answers from the whole conversation
    await model.run('list pull requests in vercel/ai', { onEvent: (e) => seen.push(e.type) });
    const messages = second.history().messages;
    assert.equal(messages.length, 8);
    assert.deepEqual(messages.slice(0, 4), saved.messages);
    assert.equal(seen.at(-1), 'done');
    // The restored call id counts as used: the new call got a different one.
    const ids = messages.filter((m) => m.role === 'assistant').flatMap((m) => m.toolCalls ?? []).map((c) => c.id);
    assert.equal(new Set(ids).size, ids.length);

    second.setHistory({ version: 1, messages: [] });
    assert.deepEqual(second.history(), { version: 1, messages: [] });
  } finally {
    second.close();
  }
});

test('malformed histories are refused with a TypeError naming the field, and change nothing', async () => {
  const agent = await createAgent({ servers: {} });
  try {
    await agent.run('hello');
    const before = agent.history();
    const cases = [
      [[], /agent\.setHistory: the history must be \{ version: 1, messages/],
      [{ messages: [] }, /history\.version must be 1, got undefined/],
      [{ version: 2, messages: [] }, /history\.version must be 1, got the number 2/],
      [{ version: 1, messages: 'no' }, /history\.messages must be an array/],
      [{ version: 1, messages: [null] }, /history\.messages\[0\] must be an object/],
      [{ version: 1, messages: [{ role: 'system', content: 'x' }] }, /history\.messages\[0\]\.role must be one of user, assistant, tool/],
      [{ version: 1, messages: [{ role: 'user', content: 1 }] }, /history\.messages\[0\]: .*content/],
    ];
    for (const [bad, message] of cases) {
      assert.throws(() => agent.setHistory(bad), { name: 'TypeError', message }, JSON.stringify(bad));
      assert.deepEqual(agent.history(), before);
    }
    await assert.rejects(createAgent({ servers: {}, history: { version: 1, messages: [{ role: 'tool' }] } }), {
      name: 'TypeError',
      message: /^createAgent: history\.messages\[0\]/,
    });
  } finally {
    agent.close();
  }
});
