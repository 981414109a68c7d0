// The GitHub demo, as in the CLI's default setup: the mock model and the mock GitHub server.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createAgent, mockGithub, mockModel } from 'agentwire';
import { eventLog } from './helpers.mjs';

const PROMPT = '查看 vercel/ai 的 issues';

/** The canned issues, read straight from the mock server (not hard-coded here). */
async function cannedIssues(agent) {
  const result = await agent.callTool('mcp__github__list_issues', { owner: 'vercel', repo: 'ai' });
  assert.equal(result.isError, false, result.text);
  return JSON.parse(result.content[0].text);
}

test('default agent: mock model plus mock GitHub connected as "github"', async () => {
  const agent = await createAgent();
  try {
    const [server] = agent.servers();
    assert.equal(server.name, 'github');
    assert.equal(server.status, 'connected');
    assert.ok(server.tools > 5, `expected the mock's tools, got ${server.tools}`);
    const tools = agent.tools();
    // The server's tools, plus the two resource tools (the mock offers resources).
    assert.equal(tools.length, server.tools + 2);
    const listIssues = tools.find((t) => t.name === 'mcp__github__list_issues');
    assert.deepEqual(
      { source: listIssues.source, server: listIssues.server, originalName: listIssues.originalName, risk: listIssues.risk },
      { source: 'mcp', server: 'github', originalName: 'list_issues', risk: 'read' },
    );
    assert.equal(tools.find((t) => t.name === 'mcp__github__create_issue').risk, 'write');
    assert.equal(listIssues.inputSchema.type, 'object');
  } finally {
    agent.close();
  }
});

test('查看 vercel/ai 的 issues → mcp__github__list_issues → answer with the canned issues', async () => {
  const audit = [];
  const agent = await createAgent({ onAudit: (record) => audit.push(record) });
  try {
    const log = eventLog();
    const answer = await agent.run(PROMPT, { onEvent: log.onEvent });

    assert.deepEqual(log.types(), ['step_start', 'tool_start', 'tool_end', 'step_start', 'model_text', 'done']);
    const [start] = log.of('tool_start');
    assert.equal(start.name, 'mcp__github__list_issues');
    assert.deepEqual(start.args, { owner: 'vercel', repo: 'ai' });
    const [end] = log.of('tool_end');
    assert.equal(end.id, start.id);
    assert.equal(end.ok, true);
    assert.equal(typeof end.duration_ms, 'number');
    assert.deepEqual(log.of('step_start').map((e) => e.step), [1, 2]);
    const [done] = log.of('done');
    assert.equal(done.answer, answer);
    assert.equal(done.steps, 2);
    assert.equal(log.of('model_text')[0].text, answer);

    const issues = await cannedIssues(agent);
    assert.ok(issues.length > 0);
    for (const issue of issues) {
      assert.ok(answer.includes(`#${issue.number}`), `answer lacks #${issue.number}:\n${answer}`);
      assert.ok(answer.includes(issue.title), `answer lacks "${issue.title}"`);
    }
    assert.ok(end.output.length > 0 && JSON.stringify(issues, null, 2).startsWith(end.output.replace(/…$/, '')));

    // One audit record for the run's call, one for the direct call.
    assert.deepEqual(audit.map((r) => [r.tool, r.server, r.outcome]), [
      ['mcp__github__list_issues', 'github', 'ok'],
      ['mcp__github__list_issues', 'github', 'ok'],
    ]);
  } finally {
    agent.close();
  }
});

test('the conversation keeps its history across runs', async () => {
  const agent = await createAgent();
  try {
    await agent.run(PROMPT);
    const afterFirst = agent.history().entries;
    assert.deepEqual(afterFirst.map((m) => m.type), ['user', 'assistant', 'tool_result', 'assistant']);
    assert.equal(afterFirst[0].content, PROMPT);

    const second = await agent.run('list pull requests in vercel/ai');
    const history = agent.history().entries;
    assert.equal(history.length, afterFirst.length * 2);
    assert.deepEqual(history.slice(0, afterFirst.length), afterFirst);
    assert.equal(history.at(-1).content, second);
    assert.equal(history[4].content, 'list pull requests in vercel/ai');

    agent.clearHistory();
    assert.deepEqual(agent.history(), { version: 1, entries: [] });
  } finally {
    agent.close();
  }
});

test('mockGithub() wrapped in a plain transport object gives the same answer as the default', async () => {
  const inProcess = await createAgent();
  const mock = mockGithub();
  // A plain object around it: the agent cannot tell it is the built-in mock, so it treats it as
  // any host transport (the mock itself lives in the mocks module either way).
  const viaJs = await createAgent({
    servers: {
      github: {
        send: (line) => mock.send(line),
        onMessage: (cb) => mock.onMessage(cb),
        onClose: (cb) => mock.onClose(cb),
        close: () => mock.close(),
      },
    },
    model: mockModel(),
  });
  try {
    assert.equal(viaJs.servers()[0].status, 'connected');
    assert.deepEqual(viaJs.tools(), inProcess.tools());
    assert.equal(await viaJs.run(PROMPT), await inProcess.run(PROMPT));
  } finally {
    inProcess.close();
    viaJs.close();
  }
});

test('mockModel().complete answers in the core request shape', async () => {
  await createAgent({ servers: {} }).then((a) => a.close()); // loads the wasm module
  const model = mockModel();
  const tools = [{ name: 'mcp__github__list_issues', description: 'List issues', inputSchema: { type: 'object' } }];
  const response = await model.complete({ system: '', messages: [{ role: 'user', content: PROMPT }], tools });
  assert.equal(response.toolCalls.length, 1);
  assert.equal(response.toolCalls[0].name, 'mcp__github__list_issues');
  assert.deepEqual(response.toolCalls[0].arguments, { owner: 'vercel', repo: 'ai' });
});
