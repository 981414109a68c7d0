// Every callback may call the agent back, in every runtime: they run outside the wasm module's call stack.
import { createAgent } from 'agentwire';
import { assert, test } from '../harness.mjs';
import { minimalServer, scriptedTransport } from './scripted.mjs';

test('callbacks may call into the agent while a run is going on', async () => {
  const seen = { notices: [], events: [], approvals: [], tool: [], model: [] };
  const transport = scriptedTransport(minimalServer([], () => undefined));
  let agent;
  const model = {
    async complete(request) {
      seen.model.push(agent.servers().map((s) => s.status).join());
      if (request.messages.at(-1).role === 'tool') return { text: 'done' };
      return { toolCalls: [{ id: 'c1', name: 'lookup', arguments: {} }] };
    },
  };
  agent = await createAgent({
    model,
    servers: { s: transport },
    onNotice: (message) => seen.notices.push([message, agent.servers().map((s) => s.status).join()]),
    onAudit: () => seen.events.push(`audit:${agent.tools().length}`),
  });
  try {
    agent.registerTool({
      name: 'lookup',
      risk: 'write',
      execute: () => {
        seen.tool.push(agent.history().entries.length);
        return 'found';
      },
    });
    // The server hangs up; the next run notices while it refreshes the servers.
    transport.hangUp('gone');
    const answer = await agent.run('go', {
      onEvent: (event) => seen.events.push(`${event.type}:${agent.tools().length}`),
      onApproval: (request) => {
        seen.approvals.push([request.name, agent.history().entries.length]);
        return 'yes';
      },
    });
    assert.equal(answer, 'done');
    assert.deepEqual(seen.notices, [['MCP server s disconnected: gone', 'failed']]);
    assert.deepEqual(seen.approvals, [['lookup', 2]]);
    assert.deepEqual(seen.tool, [2]);
    assert.deepEqual(seen.model, ['failed', 'failed']);
    assert.deepEqual(seen.events, [
      'notice:1',
      'step_start:1',
      'tool_start:1',
      'approval_request:1',
      'tool_end:1',
      'audit:1',
      'step_start:1',
      'model_text:1',
      'done:1',
    ]);
    // Still healthy afterwards.
    assert.equal((await agent.callTool('lookup')).text, 'found');
  } finally {
    agent.close();
  }
});

test('an event callback may close the agent mid-run', async () => {
  const agent = await createAgent();
  const types = [];
  const answer = await agent.run('查看 vercel/ai 的 issues', {
    onEvent: (event) => {
      types.push(event.type);
      if (event.type === 'tool_end') agent.close();
    },
  });
  assert.equal(agent.closed, true);
  assert.equal(types.at(-1), 'done');
  assert.match(answer, /#\d+/);
});
