// Sessions: createAgent({ session }) with a store of the host's (sync or async), every entry
// appended as it happens in the transcript format, secrets kept out of it, a failing store
// that loses nothing, histories of the old format, and runs paused for approval.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { createAgent, memorySession, openaiCompatible, PausedError } from 'agentwire';

const fixture = (name) => JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8'));

/** A JS model that answers every request with `reply(request)` (text). */
const textModel = (reply) => ({ complete: async (request) => ({ text: reply(request) }) });

/** A store whose every call is awaited on a timer, keeping JSONL text like a KV value. */
function asyncStore(text = '') {
  const store = {
    text,
    calls: [],
    async append(entry) {
      store.calls.push(entry.type);
      await new Promise((r) => setTimeout(r, 1));
      store.text += `${JSON.stringify(entry)}\n`;
    },
    async load() {
      await new Promise((r) => setTimeout(r, 1));
      return store.text;
    },
  };
  return store;
}

test('every entry reaches an async store as it happens, header first, and a new agent continues from it', async () => {
  const store = asyncStore();
  const agent = await createAgent({ session: store });
  try {
    // The header is written by createAgent, before any run.
    assert.deepEqual(store.calls, ['session']);
    const header = JSON.parse(store.text);
    assert.equal(header.version, 1);
    assert.match(header.id, /^[0-9a-f]+-[0-9a-f]{8}$/);
    await agent.run('查看 vercel/ai 的 issues');
    assert.deepEqual(store.calls, ['session', 'user', 'assistant', 'tool_result', 'assistant']);
    // The store's lines are history()'s entries (plus the usage the model reported).
    const strip = ({ usage, ...rest }) => rest;
    const lines = store.text.trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(lines.slice(1).map(strip), agent.history().entries.map(strip));
    const again = await createAgent({ session: asyncStore(store.text) });
    try {
      assert.deepEqual(again.history(), agent.history());
      await again.run('list pull requests in vercel/ai');
      assert.equal(again.history().entries.length, 8);
    } finally {
      again.close();
    }
  } finally {
    agent.close();
  }
});

test('session: true keeps the conversation in memory; memorySession() exposes its entries', async () => {
  const inMemory = await createAgent({ session: true, servers: {} });
  const store = memorySession();
  const agent = await createAgent({ session: store, servers: {} });
  try {
    await inMemory.run('hello');
    assert.equal(inMemory.session.load().length, 3, 'header, request, answer');
    await agent.run('hello');
    assert.deepEqual(store.entries.map((e) => e.type), ['session', 'user', 'assistant']);
    assert.equal(agent.session, store);
    agent.clearHistory();
    await agent.run('again');
    assert.deepEqual(store.entries.map((e) => e.type).slice(3), ['clear', 'user', 'assistant']);
    const reloaded = await createAgent({ session: memorySession(store.entries), servers: {} });
    assert.deepEqual(reloaded.history(), agent.history());
    reloaded.close();
  } finally {
    inMemory.close();
    agent.close();
  }
});

test('secrets of the environment, the model key and secret shapes never reach the store', async () => {
  const envSecret = 'env-secret-value-0123456789';
  process.env.AGENTWIRE_TEST_TOKEN = envSecret;
  const apiKey = 'sk-model-key-abcdefghijklmnop';
  const said = `env ${envSecret}, key ${apiKey}, github ghp_abcdefghijklmnopqrstuvwxyz0123456789, password=hunter2hunter2`;
  // The model (over a fetch of its own) repeats every secret it could have seen.
  const model = openaiCompatible({
    baseURL: 'http://model.invalid/v1',
    apiKey,
    model: 'm',
    stream: false,
    fetch: async () =>
      new Response(JSON.stringify({ choices: [{ message: { role: 'assistant', content: said }, finish_reason: 'stop' }] }), {
        headers: { 'content-type': 'application/json' },
      }),
  });
  const store = memorySession();
  const agent = await createAgent({ model, session: store, servers: {} });
  try {
    const answer = await agent.run(`remember ${envSecret} and ${apiKey}`);
    assert.equal(answer, said, 'the conversation itself keeps what was said');
    const text = JSON.stringify(store.entries);
    for (const secret of [envSecret, apiKey, 'abcdefghijklmnopqrstuvwxyz0123456789', 'hunter2hunter2']) {
      assert.ok(!text.includes(secret), `${secret} reached the store: ${text}`);
    }
    // The key's shape is caught first (`sk-` stays), the rest of it by its exact value.
    assert.match(text, /remember \[REDACTED\] and (sk-)?\[REDACTED\]/);
    // A model set later: its key is kept out too.
    const laterKey = 'sk-later-key-0123456789abc';
    agent.setModel(textModel(() => `later ${laterKey}`));
    agent.setModel(
      openaiCompatible({
        baseURL: 'http://model.invalid/v1',
        apiKey: laterKey,
        model: 'm',
        stream: false,
        fetch: async () => new Response(JSON.stringify({ choices: [{ message: { role: 'assistant', content: `later ${laterKey}` } }] })),
      }),
    );
    await agent.run('and now?');
    assert.ok(!JSON.stringify(store.entries).includes(laterKey), 'the later model key reached the store');
    assert.equal(agent.history().entries.at(-1).content, `later ${laterKey}`);
  } finally {
    delete process.env.AGENTWIRE_TEST_TOKEN;
    agent.close();
  }
});

test('a store that throws fails the run clearly, loses nothing in memory, and gets every entry once it works again', async () => {
  const kept = [];
  let broken = false;
  const store = {
    append(entry) {
      if (broken && entry.type === 'tool_result') throw new Error('disk full');
      kept.push(entry);
    },
    load: () => kept,
  };
  const agent = await createAgent({ session: store });
  try {
    await agent.run('查看 vercel/ai 的 issues');
    broken = true;
    await assert.rejects(agent.run('list pull requests in vercel/ai'), (error) => {
      assert.match(error.message, /^agent\.run: the session store's append\(\) failed: disk full \(2 entries not saved yet; the conversation is kept in memory/);
      assert.equal(error.cause.message, 'disk full');
      return true;
    });
    // In memory: the whole second turn.
    assert.equal(agent.history().entries.length, 8);
    assert.equal(kept.length, 1 + 4 + 2, 'the store got what came before the failing entry, in order');
    broken = false;
    await agent.run('and the first one?');
    assert.equal(kept.length, 1 + agent.history().entries.length, 'the header and every entry, once');
    const reloaded = await createAgent({ session: { append() {}, load: () => kept } });
    assert.deepEqual(reloaded.history(), agent.history());
    reloaded.close();
  } finally {
    agent.close();
  }
  // A store whose load throws, or that holds no transcript: createAgent says which.
  await assert.rejects(createAgent({ session: { append() {}, load: () => Promise.reject(new Error('no such key')) } }), /^Error: createAgent: the session store's load\(\) failed: no such key/);
  await assert.rejects(
    createAgent({ session: memorySession([{ type: 'session', version: 1, id: 'x' }, { type: 'user', content: 'a' }, { type: 'telepathy' }]) }),
    /^Error: createAgent: the session store does not hold a transcript this version reads: line 3: .*telepathy/,
  );
  await assert.rejects(createAgent({ session: memorySession([{ type: 'session', version: 9, id: 'x' }]) }), /version 9 was written by a newer agentwire/);
  await assert.rejects(createAgent({ session: { load() {} } }), /^TypeError: createAgent: "session" must be true or a store \{ append\(entry\), load\(\) \}/);
  await assert.rejects(createAgent({ session: true, history: { version: 1, entries: [] } }), /give "history" or "session", not both/);
});

test('a history saved in the old { version, messages } shape still loads, and history() gives entries', async () => {
  const old = fixture('history-v1-messages.json');
  assert.deepEqual(old.messages.map((m) => m.role), ['user', 'assistant', 'tool', 'assistant']);
  const agent = await createAgent({ history: old });
  try {
    const { version, entries } = agent.history();
    assert.equal(version, 1);
    assert.deepEqual(entries.map((e) => e.type), ['user', 'assistant', 'tool_result', 'assistant']);
    assert.equal(entries[0].content, old.messages[0].content);
    assert.deepEqual(entries[1].tool_calls.map((c) => c.name), old.messages[1].toolCalls.map((c) => c.name));
    assert.equal(entries[2].content, old.messages[2].content);
    // The new shape round-trips, through text; a bad entry names its index and changes nothing.
    const saved = JSON.parse(JSON.stringify(agent.history()));
    agent.setHistory(saved);
    assert.deepEqual(agent.history(), saved);
    assert.throws(
      () => agent.setHistory({ version: 1, entries: [{ type: 'user', content: 'a' }, { type: 'assistant', content: null, tool_calls: 'x' }] }),
      /^TypeError: agent\.setHistory: history\.entries\[1\]: "toolCalls" must be an array/,
    );
    assert.deepEqual(agent.history(), saved);
    await agent.run('list pull requests in vercel/ai');
    assert.equal(agent.history().entries.length, 8);
  } finally {
    agent.close();
  }
});

test('setHistory with a session writes the new history to the store', async () => {
  const store = memorySession();
  const agent = await createAgent({ session: store });
  try {
    await agent.run('hello there');
    agent.setHistory(fixture('history-v1-messages.json'));
    await agent.run('list pull requests in vercel/ai');
    const reloaded = await createAgent({ session: memorySession(store.entries), servers: {} });
    assert.deepEqual(reloaded.history(), agent.history());
    assert.equal(reloaded.history().entries[0].content, '查看 vercel/ai 的 issues');
    reloaded.close();
  } finally {
    agent.close();
  }
});

/** A model that asks for `calculator` on 6*7 and 2+3 at once, then quotes the results. */
function twoCallsModel() {
  const requests = [];
  return {
    requests,
    async complete(request) {
      requests.push(request);
      if (request.messages.at(-1).role === 'user') {
        return {
          toolCalls: [
            { id: 'a', name: 'calc', arguments: { expression: '6*7' } },
            { id: 'b', name: 'calc', arguments: { expression: '2+3' } },
          ],
        };
      }
      return { text: request.messages.slice(-2).map((m) => m.content).join(' / ') };
    },
  };
}

const calcTool = (ran) => ({
  name: 'calc',
  description: 'Evaluates',
  risk: 'execute',
  execute: ({ expression }) => (ran.push(expression), `${expression} = ${expression === '6*7' ? 42 : 5}`),
});

test('without onApproval a session run pauses; resume runs the approved call once and declines the rejected one', async () => {
  const ran = [];
  const store = memorySession();
  const model = twoCallsModel();
  const agent = await createAgent({ model, session: store, servers: {}, tools: [calcTool(ran)] });
  try {
    const events = [];
    const paused = await agent.run('compute', { onEvent: (e) => events.push(e) }).catch((e) => e);
    assert.ok(paused instanceof PausedError, String(paused));
    assert.equal(paused.name, 'PausedError');
    assert.deepEqual(paused.pending.map((p) => [p.id, p.name, p.args.expression]), [['a', 'calc', '6*7'], ['b', 'calc', '2+3']]);
    assert.match(paused.message, /^agent\.run: paused: waiting for a decision on a, b/);
    assert.deepEqual(events.at(-1), { type: 'paused', pending: events.at(-1).pending });
    assert.deepEqual(agent.pending(), paused.pending);
    assert.deepEqual(ran, []);
    // Bad decisions change nothing.
    await assert.rejects(agent.resume({ approvals: { a: 'maybe' } }), /^TypeError: agent\.resume: approvals\.a must be 'approve', 'reject' or 'always'/);
    await assert.rejects(agent.resume({ approvals: { zz: 'approve' } }), /zz/);
    assert.deepEqual(agent.pending(), paused.pending);
    // Elsewhere (a new agent over the same store): approve a, reject b.
    const other = await createAgent({ model, session: memorySession(store.entries), servers: {}, tools: [calcTool(ran)] });
    try {
      const answer = await other.resume({ approvals: { a: 'approve', b: 'reject' } });
      assert.deepEqual(ran, ['6*7'], 'the approved call ran once');
      assert.match(answer, /^6\*7 = 42 \/ denied: the user declined this call of calc/);
      assert.deepEqual(other.pending(), []);
      await assert.rejects(other.resume({ approvals: {} }), /no paused run/);
      assert.deepEqual(other.session.entries.filter((e) => e.type === 'approval').map((e) => [e.call_id, e.answer]), [['a', 'yes'], ['b', 'no']]);
    } finally {
      other.close();
    }
  } finally {
    agent.close();
  }
  // Without a session nobody keeps the run: calls are declined as before, nothing pauses.
  const plain = await createAgent({ model: twoCallsModel(), servers: {}, tools: [calcTool(ran)] });
  try {
    assert.match(await plain.run('compute'), /^denied: .* \/ denied: /);
  } finally {
    plain.close();
  }
});

test('a paused stream ends after its paused event; onApproval still answers in the same process', async () => {
  const ran = [];
  const agent = await createAgent({ model: twoCallsModel(), session: true, servers: {}, tools: [calcTool(ran)] });
  try {
    const types = [];
    for await (const event of agent.stream('compute')) types.push(event.type);
    assert.equal(types.at(-1), 'paused');
    const answer = await agent.resume({ approvals: { a: 'reject' }, onApproval: () => true });
    assert.deepEqual(ran, ['2+3']);
    assert.match(answer, /^denied: .* \/ 2\+3 = 5$/);
  } finally {
    agent.close();
  }
});

test('a new request instead of a decision answers the paused calls as not run, and the store still loads', async () => {
  const ran = [];
  const store = memorySession();
  const agent = await createAgent({ model: twoCallsModel(), session: store, servers: {}, tools: [calcTool(ran)] });
  try {
    await assert.rejects(agent.run('compute'), PausedError);
    // The second request pauses again: its own two calls wait, the first two were given up.
    await assert.rejects(agent.run('compute again'), PausedError);
    const results = agent.history().entries.filter((e) => e.type === 'tool_result');
    assert.deepEqual(results.map((e) => [e.call_id, e.content]), [
      ['a', 'not run: a new request came before a decision on this call'],
      ['b', 'not run: a new request came before a decision on this call'],
    ]);
    assert.equal(agent.pending().length, 2);
    const reloaded = await createAgent({ session: memorySession(store.entries), servers: {} });
    assert.deepEqual(reloaded.history(), agent.history());
    reloaded.close();
    assert.deepEqual(ran, []);
  } finally {
    agent.close();
  }
});

test('agent.compact() compacts now: it resolves to nothing, emits compacted, the store gets the compaction entry, and runs go on', async () => {
  const store = memorySession();
  const agent = await createAgent({ session: store, servers: {} });
  try {
    await agent.run('hello');
    await agent.run('again');
    const events = [];
    assert.equal(await agent.compact('the greetings', { onEvent: (e) => events.push(e) }), undefined);
    const compacted = events.filter((e) => e.type === 'compacted');
    assert.equal(compacted.length, 1, JSON.stringify(events));
    assert.ok(compacted[0].tokens_after < compacted[0].tokens_before, JSON.stringify(compacted[0]));
    assert.equal(store.entries.at(-1).type, 'compaction');
    const reloaded = await createAgent({ session: memorySession(store.entries), servers: {} });
    assert.deepEqual(reloaded.history(), agent.history());
    reloaded.close();
    await agent.run('after');
    assert.deepEqual(store.entries.map((e) => e.type).slice(-2), ['user', 'assistant']);
  } finally {
    agent.close();
  }
});
