// Run control with the mock model in every runtime: abort during a JS tool, and a stream whose
// consumer breaks out mid-run.
import { createAgent, diagnostics } from 'agentwire';
import { assert, eventLog, test } from '../harness.mjs';

const IDLE = { timers: 0, modelCalls: 0, toolCalls: 0 };

/** A JS tool that waits until its signal aborts; `started` resolves when it is called. */
function waitingTool() {
  let called;
  const started = new Promise((resolve) => (called = resolve));
  const tool = {
    name: 'get_weather',
    risk: 'read',
    execute: (_args, { signal }) => {
      called(signal);
      return new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
    },
  };
  return { tool, started };
}

test('abort during a JS tool: the tool sees the reason, one error event, the agent runs again', async () => {
  const { tool, started } = waitingTool();
  const agent = await createAgent({ servers: {}, tools: [tool] });
  try {
    const controller = new AbortController();
    const log = eventLog();
    const run = agent.run('weather in Paris', { signal: controller.signal, onEvent: log.onEvent });
    const signal = await started;
    const reason = new Error('navigated away');
    controller.abort(reason);
    let name = null;
    await run.catch((e) => (name = e.name));
    assert.equal(name, 'AbortError');
    assert.equal(signal.reason, reason);
    assert.equal(log.types().filter((t) => t === 'error' || t === 'done').length, 1, log.types().join());
    assert.deepEqual(diagnostics(), IDLE);
    const again = await agent.run('hello');
    assert.ok(typeof again === 'string');
  } finally {
    agent.close();
  }
});

test('stream() yields the events of a run and ends after done; break cancels the run', async () => {
  const agent = await createAgent();
  try {
    const types = [];
    for await (const event of agent.stream('查看 vercel/ai 的 issues')) types.push(event.type);
    assert.deepEqual(types, ['step_start', 'tool_start', 'tool_end', 'step_start', 'model_text', 'done']);
    const { tool, started } = waitingTool();
    agent.registerTool(tool);
    const seen = [];
    for await (const event of agent.stream('weather in Paris', { onApproval: () => true })) {
      seen.push(event.type);
      if (event.type === 'tool_start') break;
    }
    const signal = await started;
    assert.equal(signal.aborted, true, 'break did not abort the tool');
    assert.deepEqual(diagnostics(), IDLE);
  } finally {
    agent.close();
  }
});
