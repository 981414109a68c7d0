// The skill set lives in the on-demand `ext` module, not in the runtime module: an agent
// without skill items never loads it (plugin tools included); its first skill loads it, and the
// runtime's skill tools, activations and `/name` expansions then come from it. Its own file:
// node --test runs each file in its own process, so no other test has loaded the module.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createAgent } from 'agentwire';
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

const names = (agent) => agent.tools().map((t) => t.name);

test('without skill items the ext module is never loaded; the first skill loads it and answers', async () => {
  const model = scriptedModel([
    { text: 'no skills yet' },
    { toolCalls: [{ id: 'a', name: 'activate_skill', arguments: { name: 'style', arguments: 'terse' } }] },
    { text: 'styled' },
  ]);
  const agent = await createAgent({ model, servers: {} });
  try {
    await agent.use({ name: 'tools-only', tools: [{ name: 'echo', risk: 'read', execute: (args) => JSON.stringify(args) }] });
    assert.equal(await agent.run('hello'), 'no skills yet');
    assert.ok(loaded('wasmagent_new'), `the runtime module is loaded: ${instances.length} instances`);
    assert.equal(loaded('skillbook_op'), false, 'no skill item, no ext module');
    assert.deepEqual([agent.skills(), agent.commands()], [[], []]);
    assert.ok(!names(agent).includes('activate_skill'));
    await assert.rejects(agent.runCommand('style'), /unknown command \/style/);
    assert.equal(loaded('skillbook_op'), false);

    await agent.addSkills([{ name: 'style', description: 'House style', instructions: 'Write $ARGUMENTS.' }]);
    assert.ok(loaded('skillbook_op'), 'the first skill loads the ext module');
    assert.deepEqual(agent.skills().map((s) => [s.qualified, s.source]), [['style', 'host']]);
    const activate = agent.tools().find((t) => t.name === 'activate_skill');
    assert.ok(activate.description.includes('- style: House style'), activate.description);
    assert.equal(await agent.run('use the house style'), 'styled');
    const result = model.requests[2].messages.find((m) => m.role === 'tool');
    assert.equal(result.content, '<skill name="style" source="host">\nWrite terse.\n</skill>');

    assert.equal(agent.removeSkill('style'), true);
    assert.ok(!names(agent).includes('activate_skill'), 'the runtime rebuilt its skill tools');
    assert.equal(agent.removeSkill('style'), false);
  } finally {
    agent.close();
  }
  assert.equal(agent.closed, true);
});
