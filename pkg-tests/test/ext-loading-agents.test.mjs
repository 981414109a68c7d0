// The `agents` option's reader and catalog, and a session store's redactor, live in the
// on-demand `ext` module, not in the runtime module: an agent with neither never loads it; one
// with `agents` or a `session` does, and gets the same Agent tool and redacted entries. Its own
// file: node --test runs each file in its own process, so no other test has loaded the module.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createAgent, memorySession } from 'agentwire';
import { scriptedModel } from './helpers.mjs';

/** The export names of every wasm instance made in this process, in order. */
const instances = [];
const instantiate = WebAssembly.instantiate;
WebAssembly.instantiate = async function (...args) {
  const result = await instantiate.apply(this, args);
  const instance = result instanceof WebAssembly.Instance ? result : result.instance;
  instances.push(Object.keys(instance.exports));
  return result;
};
const loaded = (exportName) => instances.some((names) => names.includes(exportName));

test('agents and sessions load the ext module; an agent with neither never does', async () => {
  const plain = await createAgent({ model: scriptedModel([{ text: 'plain' }]), servers: {} });
  try {
    assert.equal(await plain.run('hello'), 'plain');
    assert.ok(loaded('wasmagent_new'), 'the runtime module is loaded');
    assert.equal(loaded('agentSetRecord'), false, 'no agents, no session: no ext module');
  } finally {
    plain.close();
  }

  const agent = await createAgent({
    model: scriptedModel([{ text: 'ok' }]),
    servers: {},
    agents: [
      { name: 'zeta', description: 'Last\n  by name.', permissionMode: 'plan', maxTurns: 2 },
      { name: 'alpha', description: 'First by name.', tools: ['Read'] },
    ],
  });
  try {
    assert.ok(loaded('agentSetRecord'), '`agents` loads the ext module');
    const tool = agent.tools().find((t) => t.name === 'Agent');
    assert.ok(tool, 'the Agent tool');
    const alpha = tool.description.indexOf('- alpha: First by name.');
    const general = tool.description.indexOf('- general-purpose: ');
    const zeta = tool.description.indexOf('- zeta: Last by name.');
    assert.ok(alpha > 0 && alpha < general && general < zeta, tool.description);
    assert.deepEqual(tool.inputSchema.properties.subagent_type.enum, ['alpha', 'general-purpose', 'zeta']);
    assert.deepEqual(tool.inputSchema.required, ['description', 'prompt']);
  } finally {
    agent.close();
  }
  await assert.rejects(
    createAgent({ servers: {}, agents: [{ name: 'a', description: 'd', permissionMode: 'bypassPermissions' }] }),
    /^TypeError: createAgent: agents\[0\]: agent a: permission mode bypassPermissions would give the agent more than its parent/,
  );

  const store = memorySession();
  const secret = 'sk-proj-abcdefghijklmnopqrstuvwxyz0123456789';
  const kept = await createAgent({ model: scriptedModel([{ text: `noted ${secret}` }]), servers: {}, session: store });
  try {
    assert.ok(loaded('storeredactor_line'), 'a session redacts through the ext module');
    assert.equal(await kept.run('remember this'), `noted ${secret}`);
    const text = store.entries.map((e) => JSON.stringify(e)).join('\n');
    assert.ok(!text.includes(secret), text);
    assert.deepEqual(store.entries.map((e) => e.type), ['session', 'user', 'assistant']);
    assert.match(store.entries[2].content, /^noted .*\[REDACTED\]/);
  } finally {
    kept.close();
  }
});
