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

/** A model that records its requests and answers with `text` (naming itself). */
function namedModel(label) {
  const requests = [];
  return {
    requests,
    async complete(request) {
      requests.push(request);
      return { text: `${label} answered` };
    },
  };
}

test('an agent\'s `model` names one of `models`: its child runs there; absent or inherit, on the agent\'s own', async () => {
  const small = namedModel('small');
  const parentRequests = [];
  const parent = {
    async complete(request) {
      parentRequests.push(request);
      // A child's request (its own system prompt) is answered as a child.
      if (request.system.includes('You review.') || request.system.includes('You inherit.')) return { text: 'parent model answered a child' };
      const results = request.messages.filter((m) => m.role === 'tool');
      if (results.length === 0) {
        return {
          toolCalls: [
            { id: 'a', name: 'Agent', arguments: { subagent_type: 'reviewer', description: 'review', prompt: 'Review it.' } },
            { id: 'b', name: 'Agent', arguments: { subagent_type: 'heir', description: 'inherit', prompt: 'Do it.' } },
          ],
        };
      }
      return { text: results.map((m) => String(m.content)).join(' | ') };
    },
  };
  const agent = await createAgent({
    model: parent,
    servers: {},
    models: { small },
    agents: [
      { name: 'reviewer', description: 'Reviews.', instructions: 'You review.', model: 'small' },
      { name: 'heir', description: 'Inherits.', instructions: 'You inherit.', model: 'inherit' },
    ],
  });
  try {
    const answer = await agent.run('review and do');
    assert.equal(small.requests.length, 1, 'the reviewer ran on the named model, once');
    assert.match(small.requests[0].system, /You review\./);
    assert.match(small.requests[0].messages.at(-1).content, /Review it\./);
    const childOnParent = parentRequests.filter((r) => r.system.includes('You inherit.'));
    assert.equal(childOnParent.length, 1, 'the inheriting child ran on the agent\'s model');
    assert.equal(parentRequests.filter((r) => r.system.includes('You review.')).length, 0, 'the reviewer never reached the agent\'s model');
    assert.match(answer, /small answered/);
    assert.match(answer, /parent model answered a child/);
  } finally {
    agent.close();
  }
});

test('a `model` no entry of `models` has is refused at createAgent, naming the agent', async () => {
  await assert.rejects(
    createAgent({ servers: {}, models: { small: namedModel('small') }, agents: [{ name: 'reviewer', description: 'd', model: 'large' }] }),
    /createAgent: agents\[0\]: agent reviewer names model "large", which is not in "models" \(one of "small"\)/,
  );
  await assert.rejects(
    createAgent({ servers: {}, agents: [{ name: 'writer', description: 'd', model: 'sonnet' }] }),
    /agent writer names model "sonnet", which is not in "models" \(none given\)/,
  );
  await assert.rejects(createAgent({ servers: {}, models: { small: {} } }), /createAgent: models\.small: "model" must be an object with a complete\(request\) method/);
  await assert.rejects(createAgent({ servers: {}, models: [] }), /"models" must be an object mapping names to models/);
});
