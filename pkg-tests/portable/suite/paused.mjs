// A run that pauses for approval, shared by the suite (every runtime) and run.mjs (Node 20),
// which hand its session store's contents to each other: a scripted model asks for two `note`
// calls at once, each needs approval, and nobody in the process can give it.
import { createAgent, memorySession, PausedError } from 'agentwire';
import { assert } from '../harness.mjs';

/** The model: two `note` calls for a new request, then an answer quoting the results. */
export function noteModel() {
  const requests = [];
  return {
    requests,
    async complete(request) {
      requests.push(request);
      const last = request.messages.at(-1);
      if (last.role === 'user') {
        return {
          toolCalls: [
            { id: 'n1', name: 'note', arguments: { text: 'keep' } },
            { id: 'n2', name: 'note', arguments: { text: 'drop' } },
          ],
        };
      }
      const results = request.messages.filter((m) => m.role === 'tool').slice(-2);
      return { text: `results: ${results.map((m) => m.content).join(' | ')}` };
    },
  };
}

/** An agent over `entries` (a store's contents) whose `note` tool records what it wrote in `notes`. */
export async function noteAgent(entries, notes = []) {
  const store = memorySession(entries);
  const model = noteModel();
  const agent = await createAgent({
    model,
    servers: {},
    session: store,
    ask: ['note'],
    tools: [{ name: 'note', description: 'Writes a note', risk: 'read', execute: ({ text }) => (notes.push(text), `noted ${text}`) }],
  });
  return { agent, store, model, notes };
}

/** Runs a request that pauses; resolves to the store's contents (JSON text) and checks the pause. */
export async function pauseRun(entries, prompt) {
  const { agent, store, notes } = await noteAgent(entries);
  try {
    const events = [];
    let paused;
    try {
      await agent.run(prompt, { onEvent: (e) => events.push(e) });
    } catch (error) {
      paused = error;
    }
    assert.ok(paused instanceof PausedError, `the run did not pause: ${paused?.stack ?? 'it answered'}`);
    assert.equal(paused.pending.length, 2);
    assert.deepEqual(agent.pending().map((p) => p.name), ['note', 'note']);
    assert.equal(events.at(-1).type, 'paused');
    assert.equal(notes.length, 0, 'nothing runs before a decision');
    return JSON.stringify(store.entries);
  } finally {
    agent.close();
  }
}

/**
 * Resumes the paused run of `entriesJson`: the first call approved, the second rejected.
 * Checks that the approved one ran once, here, and that the model saw the other as declined;
 * resolves to `{ history, stored }`: the agent's history entries and the store's contents.
 */
export async function resumeRun(entriesJson) {
  const { agent, store, model, notes } = await noteAgent(JSON.parse(entriesJson));
  try {
    const pending = agent.pending();
    assert.deepEqual(pending.map((p) => p.args.text), ['keep', 'drop']);
    const answer = await agent.resume({ approvals: { [pending[0].id]: 'approve', [pending[1].id]: 'reject' } });
    assert.deepEqual(notes, ['keep'], 'the approved call runs exactly once');
    const [kept, dropped] = model.requests.at(-1).messages.slice(-2);
    assert.equal(kept.content, 'noted keep');
    assert.match(dropped.content, /^denied: the user declined this call of note/);
    assert.match(answer, /^results: noted keep \| denied: the user declined/);
    assert.deepEqual(agent.pending(), []);
    // The store holds the whole conversation: a new agent over it has the same history.
    const again = await noteAgent(store.entries);
    try {
      assert.deepEqual(again.agent.history(), agent.history());
    } finally {
      again.agent.close();
    }
    return { history: agent.history().entries, stored: store.entries };
  } finally {
    agent.close();
  }
}
