// Subagents in the npm package: `agents` adds the `Agent` tool, the mock model dispatches
// children against the mock GitHub server, their events carry `agent` and
// `parent_tool_use_id`, and `onApproval` is told which child asks.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createAgent } from 'agentwire';

const TWO = 'use subagents: list issues in vercel/ai; list pull requests in facebook/react';

test('without `agents` there is no Agent tool; with it, the catalog lists each agent', async () => {
  const plain = await createAgent();
  try {
    assert.equal(plain.tools().some((t) => t.name === 'Agent'), false);
  } finally {
    plain.close();
  }
  const agent = await createAgent({
    agents: [{ name: 'researcher', description: 'Finds things in repositories.', instructions: 'Search well.', tools: ['mcp__github__*'] }],
  });
  try {
    const tool = agent.tools().find((t) => t.name === 'Agent');
    assert.ok(tool, 'the Agent tool');
    assert.match(tool.description, /- general-purpose: /);
    assert.match(tool.description, /- researcher: Finds things in repositories\./);
    assert.deepEqual(tool.inputSchema.properties.subagent_type.enum, ['general-purpose', 'researcher']);
  } finally {
    agent.close();
  }
});

test('children run in parallel and their events name them', async () => {
  const agent = await createAgent({ agents: [] });
  try {
    const events = [];
    const answer = await agent.run(TWO, { onEvent: (e) => events.push(e) });
    const calls = events.filter((e) => e.type === 'tool_start' && e.name === 'Agent' && e.agent === undefined);
    assert.equal(calls.length, 2);
    for (const call of calls) {
      const child = events.filter((e) => e.parent_tool_use_id === call.id);
      assert.ok(child.every((e) => e.agent === 'general-purpose'));
      assert.deepEqual(
        child.map((e) => e.type),
        ['step_start', 'tool_start', 'tool_end', 'step_start', 'model_text', 'done'],
      );
    }
    assert.equal(events.at(-1).type, 'done');
    assert.equal(events.at(-1).agent, undefined);
    assert.match(answer, /vercel\/ai/);
    assert.match(answer, /facebook\/react/);
  } finally {
    agent.close();
  }
});

test('a child asks the same onApproval, named; a denied tool never reaches a child', async () => {
  const agent = await createAgent({ agents: [], ask: ['mcp__github__list_issues'], deny: ['mcp__github__list_pull_requests'] });
  try {
    const asked = [];
    const events = [];
    await agent.run(TWO, {
      onEvent: (e) => events.push(e),
      onApproval: (request) => {
        asked.push(request);
        return 'yes';
      },
    });
    assert.equal(asked.length, 1);
    assert.equal(asked[0].name, 'mcp__github__list_issues');
    assert.equal(asked[0].agent, 'general-purpose');
    const ran = events.filter((e) => e.type === 'tool_start' && e.agent !== undefined).map((e) => e.name);
    assert.deepEqual(ran, ['mcp__github__list_issues']);
  } finally {
    agent.close();
  }
});

test('a stream ends at the run\'s done, not a child\'s; abort stops every child', async () => {
  const agent = await createAgent({ agents: [] });
  try {
    const seen = [];
    for await (const event of agent.stream(TWO)) seen.push(event);
    assert.equal(seen.at(-1).type, 'done');
    assert.equal(seen.at(-1).parent_tool_use_id, undefined);
    assert.equal(seen.filter((e) => e.type === 'done').length, 3);

    const controller = new AbortController();
    const events = [];
    const run = agent.run(TWO, {
      signal: controller.signal,
      onEvent: (e) => {
        events.push(e);
        if (e.type === 'step_start' && e.agent !== undefined) controller.abort();
      },
    });
    await assert.rejects(run, { name: 'AbortError' });
    const terminal = events.filter((e) => (e.type === 'done' || e.type === 'error') && e.agent === undefined);
    assert.equal(terminal.length, 1);
    // The agent is usable again.
    assert.match(await agent.run('list issues in vercel/ai'), /vercel\/ai/);
  } finally {
    agent.close();
  }
});

test('bad agent definitions are refused naming the field', async () => {
  await assert.rejects(createAgent({ agents: [{ name: 'x' }] }), /agents\[0\].*"description" is required/);
  await assert.rejects(createAgent({ agents: [{ name: 'x', description: 'd', colour: 'red' }] }), /unknown option "colour"/);
  await assert.rejects(
    createAgent({ agents: [{ name: 'x', description: 'd', permissionMode: 'bypassPermissions' }] }),
    /more than its parent/,
  );
});
