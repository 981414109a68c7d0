// Hook functions in every runtime (workerd, Deno, Bun, browsers, Node): the core merges what
// they say with the only-tighten rule; a plugin's command hook is listed as not run, since
// this entry never starts a process.
import { createAgent } from 'agentwire';
import { assert, test } from '../harness.mjs';

function caller(tool) {
  return {
    async complete(request) {
      if (request.messages.at(-1).role === 'user') return { toolCalls: [{ id: 'call_1', name: tool, arguments: { n: 1 } }] };
      return { text: request.messages.filter((m) => m.role === 'tool').map((m) => m.content).join(' | ') };
    },
  };
}

function tool(name, calls) {
  return { name, risk: 'read', inputSchema: { type: 'object' }, execute: async (args) => { calls.push(args); return `ran ${name}`; } };
}

test('a PreToolUse hook function denies a call, and its allow never beats the user deny', async () => {
  const seen = [];
  const calls = [];
  const deny = (input) => {
    seen.push(input);
    return { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'hook says no' } };
  };
  const agent = await createAgent({ model: caller('probe'), servers: {}, tools: [tool('probe', calls)], hooks: { PreToolUse: [{ matcher: 'probe', hooks: [deny] }] } });
  try {
    const answer = await agent.run('go');
    assert.equal(calls.length, 0);
    assert.match(answer, /hook says no/);
    assert.equal(seen[0].tool_name, 'probe');
    assert.equal(seen[0].hook_event_name, 'PreToolUse');
  } finally {
    agent.close();
  }
  const allow = () => ({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow' } });
  const denied = await createAgent({ model: caller('probe'), servers: {}, tools: [tool('probe', calls)], deny: ['probe'], hooks: { PreToolUse: [allow] } });
  try {
    await denied.run('go');
    assert.equal(calls.length, 0, 'a hook allow beat the deny rule');
  } finally {
    denied.close();
  }
});

test("a plugin's command hook is listed as not run here, and never runs", async () => {
  const calls = [];
  const settings = { hooks: { PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: 'exit 2' }] }] } };
  const agent = await createAgent({ model: caller('probe'), servers: {}, tools: [tool('probe', calls)], plugins: [{ name: 'guard', hooks: { settings } }] });
  try {
    const [listed] = agent.hooks();
    assert.equal(listed.kind, 'command');
    assert.equal(listed.runs, false);
    assert.match(listed.why, /agentwire\/node/);
    // Had it run, exit 2 would have blocked the call.
    await agent.run('go');
    assert.equal(calls.length, 1);
  } finally {
    agent.close();
  }
});
