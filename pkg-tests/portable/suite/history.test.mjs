// Conversations that survive restarts, in every runtime: history() as versioned plain JSON (the
// transcript format's entries),
// restored into a new agent here, or saved by another runtime (env.savedHistory: Node 20 saved
// it in run.mjs) and continued here; what this runtime saves goes back to run.mjs, which
// continues it in Node. Malformed histories are TypeErrors naming the field.
import { createAgent } from 'agentwire';
import { assert, eventLog, test } from '../harness.mjs';

const PROMPT = '查看 vercel/ai 的 issues';
const FOLLOW_UP = 'list pull requests in vercel/ai';

/** Restores `saved` into a new agent, continues with FOLLOW_UP, and checks the conversation. */
async function continueFrom(saved) {
  const agent = await createAgent({ history: saved });
  try {
    assert.deepEqual(agent.history(), saved);
    const log = eventLog();
    await agent.run(FOLLOW_UP, { onEvent: log.onEvent });
    assert.deepEqual(log.types(), ['step_start', 'tool_start', 'tool_end', 'step_start', 'model_text', 'done']);
    assert.equal(log.of('tool_start')[0].name, 'mcp__github__list_pull_requests');
    const entries = agent.history().entries;
    assert.equal(entries.length, 8);
    assert.deepEqual(entries.slice(0, 4), saved.entries);
    // The restored call id counts as used: the new call got a different one.
    const ids = entries.filter((e) => e.type === 'assistant').flatMap((e) => e.tool_calls).map((c) => c.id);
    assert.equal(new Set(ids).size, ids.length, `tool call ids repeat: ${ids}`);
    agent.setHistory({ version: 1, entries: [] });
    assert.deepEqual(agent.history(), { version: 1, entries: [] });
  } finally {
    agent.close();
  }
}

test('history saved after a tool call restores into a new agent, which continues', async (env) => {
  const first = await createAgent();
  let saved;
  try {
    await first.run(PROMPT);
    saved = JSON.parse(JSON.stringify(first.history())); // through text, as a file or KV store would
  } finally {
    first.close();
  }
  assert.equal(saved.version, 1);
  assert.deepEqual(saved.entries.map((e) => e.type), ['user', 'assistant', 'tool_result', 'assistant']);
  assert.equal(saved.entries[1].tool_calls[0].name, 'mcp__github__list_issues');
  env.share('savedHistory', JSON.stringify(saved)); // run.mjs continues it in Node
  await continueFrom(saved);
});

test('history saved by another runtime (Node 20, after a tool call) continues here', async (env) => {
  if (!env.savedHistory) throw new Error('env.savedHistory is missing (run.mjs saves it in Node)');
  const saved = JSON.parse(env.savedHistory);
  assert.deepEqual(saved.entries.map((e) => e.type), ['user', 'assistant', 'tool_result', 'assistant']);
  await continueFrom(saved);
});

test('malformed histories are refused with a TypeError naming the field, and change nothing', async () => {
  const agent = await createAgent({ servers: {} });
  try {
    await agent.run('hello');
    const before = agent.history();
    const cases = [
      [[], /agent\.setHistory: the history must be \{ version: 1, entries/],
      [{ version: 1, entries: 'no' }, /history\.entries must be an array/],
      [{ version: 1, entries: [null] }, /history\.entries\[0\] must be an object/],
      [{ version: 1, entries: [{ type: 'user', content: 1 }] }, /history\.entries\[0\]: .*content/],
      [{ version: 1, entries: [{ type: 'telepathy' }] }, /history\.entries\[0\]\.type must be user, assistant or tool_result .*telepathy/],
      [{ messages: [] }, /history\.version must be 1, got undefined/],
      [{ version: 2, messages: [] }, /history\.version must be 1, got the number 2/],
      [{ version: 1, messages: 'no' }, /history\.messages must be an array/],
      [{ version: 1, messages: [null] }, /history\.messages\[0\] must be an object/],
      [{ version: 1, messages: [{ role: 'system', content: 'x' }] }, /history\.messages\[0\]\.role must be one of user, assistant, tool/],
      [{ version: 1, messages: [{ role: 'user', content: 1 }] }, /history\.messages\[0\]: .*content/],
    ];
    for (const [bad, message] of cases) {
      await assert.throws(() => agent.setHistory(bad), TypeError, message);
      assert.deepEqual(agent.history(), before, `setHistory(${JSON.stringify(bad)}) changed the history`);
    }
    await assert.throws(
      () => createAgent({ servers: {}, history: { version: 1, messages: [{ role: 'tool' }] } }),
      TypeError,
      /^createAgent: history\.messages\[0\]/,
    );
  } finally {
    agent.close();
  }
});
