// MCP resources, prompts and completion through the npm API, against the mock GitHub server.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createAgent } from 'agentwire';

test('resources, reads, prompts, completion and @server:uri', async () => {
  const agent = await createAgent();
  try {
    const { resources, resourceTemplates } = await agent.resources();
    assert.ok(resources.some((r) => r.server === 'github' && r.uri === 'repo://vercel/ai/contents/README.md'));
    assert.equal(resourceTemplates[0].uriTemplate, 'repo://{owner}/{repo}/contents{/path*}');
    const read = await agent.readResource('github', 'repo://vercel/ai/contents/README.md');
    assert.match(read.contents[0].text, /^# AI SDK/);
    await assert.rejects(agent.readResource('github', 'repo://vercel/ai/contents/NOPE'),
      /agent\.readResource: reading repo:\/\/vercel\/ai\/contents\/NOPE from MCP server github failed/);
    await assert.rejects(agent.readResource(undefined, 'x:y'), /agent\.readResource/);
    const prompts = await agent.prompts('github');
    assert.deepEqual(prompts.map((p) => p.name), ['summarize_open_issues', 'explain_file']);
    const got = await agent.getPrompt('github', 'summarize_open_issues', { owner: 'vercel', repo: 'ai' });
    assert.match(got.messages[0].content.text, /open issues of vercel\/ai/);
    assert.deepEqual(await agent.complete('github', 'explain_file', 'owner', 'fa'), ['facebook']);
    const tools = agent.tools().map((t) => t.name);
    assert.ok(tools.includes('list_mcp_resources') && tools.includes('read_mcp_resource'));
  } finally {
    agent.close();
  }
});

test('a run attaches @server:uri and fails naming a resource it cannot read', async () => {
  const seen = [];
  const model = {
    complete: async (request) => {
      seen.push(request.messages.at(-1).content);
      return { text: 'ok' };
    },
  };
  const agent = await createAgent({ model });
  try {
    await agent.run('explain @github:repo://vercel/ai/contents/LICENSE');
    assert.match(seen[0], /<resource server="github" uri="repo:\/\/vercel\/ai\/contents\/LICENSE">\nApache License/);
    await assert.rejects(agent.run('see @github:repo://x/y/contents/z'), /MCP server github failed/);
  } finally {
    agent.close();
  }
});
