// The 2026-07-28 extensions from inside the runtime, against a real stateless modern HTTP
// server (../ext-server.mjs, on loopback): Tasks (`tasks: true`: a tools/call turned into a
// task is followed to its result; an aborted run cancels it with tasks/cancel) and Skills over
// MCP (`skills: true`: the server's skills join the catalog as `<server>:<skill>`, read only
// on activation, size and digest checked, a tampered file refused, `allowed-tools` granting
// nothing).
import { createAgent, diagnostics, httpTransport } from 'agentwire';
import { assert, eventLog, test } from '../harness.mjs';
import { callOnceModel, sleep, terminalEvents } from './scripted.mjs';

const TASKS = 'io.modelcontextprotocol/tasks';
const SKILLS = 'io.modelcontextprotocol/skills';
/** What `diagnostics()` says when nothing is pending (as in abort.test.mjs). */
const IDLE = { timers: 0, modelCalls: 0, toolCalls: 0 };

/** The server's log of JSON-RPC requests ({method, name, params}), fetched now. */
async function serverLog(env) {
  const response = await fetch(env.extLog, { cache: 'no-store' });
  return response.json();
}

/** The first request after the first `before` the server logged that `match`es, polled for. */
async function logged(env, before, match, what, ms = 15_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = (await serverLog(env)).slice(before).find(match);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`${what} did not reach the server within ${ms} ms`);
    await sleep(20);
  }
}

/** A model that makes `calls` ({name, arguments}) one model turn each, then answers. */
function stepsModel(calls) {
  const requests = [];
  return {
    requests,
    async complete(request) {
      requests.push(request);
      const step = calls[requests.length - 1];
      if (!step) return { text: 'finished' };
      return { toolCalls: [{ id: `call_${requests.length}`, name: step.name, arguments: step.arguments }] };
    },
  };
}

/** The tool results the model was shown, in order (the content of each `tool` message). */
const toolResults = (model) => model.requests.at(-1).messages.filter((m) => m.role === 'tool').map((m) => String(m.content));

test('MCP Tasks: a tools/call the server turns into a task is followed with tasks/get to its result', async (env) => {
  if (!env.extUrl) throw new Error('env.extUrl is missing (run.mjs starts the extensions server)');
  const agent = await createAgent({ servers: { jobs: httpTransport(env.extUrl) }, serverOptions: { jobs: { tasks: true } } });
  try {
    const [server] = agent.servers();
    assert.equal(server.status, 'connected', JSON.stringify(server));
    assert.equal(server.era, 'modern');
    assert.deepEqual(server.extensions, [TASKS], 'tasks asked for and declared by the server; skills not asked for');
    const before = (await serverLog(env)).length;
    const result = await agent.callTool('mcp__jobs__report', {});
    assert.equal(result.isError, false, JSON.stringify(result));
    assert.equal(result.text, 'report ready after 2 polls', 'the completed task\'s result is the call\'s');
    const log = (await serverLog(env)).slice(before);
    const call = log.find((r) => r.method === 'tools/call');
    assert.deepEqual(call.params._meta['io.modelcontextprotocol/clientCapabilities'].extensions, { [TASKS]: {} });
    const polls = log.filter((r) => r.method === 'tasks/get');
    assert.equal(polls.length, 2, JSON.stringify(log.map((r) => r.method)));
    const id = polls[0].params.taskId;
    assert.ok(/^task-\d+$/.test(id), id);
    assert.ok(polls.every((p) => p.params.taskId === id && p.name === id), 'Mcp-Name carries the task id');
    assert.equal(log.some((r) => r.method === 'tasks/cancel'), false, 'a task that completed is not cancelled');
  } finally {
    agent.close();
  }
});

test('MCP Tasks: a running task\'s status message reaches onEvent as tool_progress of its call', async (env) => {
  const model = callOnceModel('mcp__jobs__report', {});
  const agent = await createAgent({
    model,
    servers: { jobs: httpTransport(env.extUrl) },
    serverOptions: { jobs: { tasks: true } },
    allow: ['mcp__jobs__report'],
  });
  try {
    const log = eventLog();
    const answer = await agent.run('build the report', { onEvent: log.onEvent });
    assert.equal(answer, 'tool said: report ready after 2 polls');
    const types = log.types().filter((t) => t.startsWith('tool_'));
    assert.equal(types[0], 'tool_start', types.join(', '));
    assert.equal(types.at(-1), 'tool_end', types.join(', '));
    const [first] = log.of('tool_progress');
    assert.ok(first, `a tool_progress event: ${JSON.stringify(log.types())}`);
    assert.equal(first.id, log.of('tool_start')[0].id);
    assert.equal(first.name, 'mcp__jobs__report');
    assert.equal(first.server, 'jobs');
    assert.equal(first.message, 'started', 'the task\'s first statusMessage');
    assert.equal(first.total, undefined);
  } finally {
    agent.close();
  }
});

test('MCP Tasks are off unless asked for: the same tool is answered at once, no extension declared', async (env) => {
  const agent = await createAgent({ servers: { jobs: httpTransport(env.extUrl) } });
  try {
    const [server] = agent.servers();
    assert.equal(server.extensions, undefined, JSON.stringify(server));
    const before = (await serverLog(env)).length;
    const result = await agent.callTool('mcp__jobs__report', {});
    assert.equal(result.text, 'report: done');
    const log = (await serverLog(env)).slice(before);
    assert.deepEqual(log.map((r) => r.method), ['tools/call']);
    assert.equal(log[0].params._meta['io.modelcontextprotocol/clientCapabilities'].extensions, undefined);
  } finally {
    agent.close();
  }
});

test('MCP Tasks: aborting the run (signal) sends tasks/cancel for the running task, and the run ends once', async (env) => {
  const model = callOnceModel('mcp__jobs__endless', {});
  const agent = await createAgent({
    model,
    servers: { jobs: httpTransport(env.extUrl) },
    serverOptions: { jobs: { tasks: true } },
    allow: ['mcp__jobs__endless'],
  });
  try {
    const before = (await serverLog(env)).length;
    const controller = new AbortController();
    const log = eventLog();
    const run = agent.run('work forever', { onEvent: log.onEvent, signal: controller.signal }).then(
      () => 'resolved',
      (error) => error,
    );
    // The task is running once the server has been polled for it.
    const polled = await logged(env, before, (r) => r.method === 'tasks/get', 'a tasks/get of the endless task');
    controller.abort();
    const ended = await run;
    assert.equal(ended?.name, 'AbortError', `an aborted run rejects with an AbortError, got ${ended}`);
    assert.equal(terminalEvents(log).length, 1, JSON.stringify(log.types()));
    const cancel = await logged(env, before, (r) => r.method === 'tasks/cancel', 'the tasks/cancel');
    assert.equal(cancel.params.taskId, polled.params.taskId);
    assert.equal(cancel.name, polled.params.taskId, 'Mcp-Name carries the task id');
    assert.deepEqual(diagnostics(), IDLE, 'no call or timer left behind');
  } finally {
    agent.close();
  }
});

test('Skills over MCP: listed at connection as <server>:<skill>, read and verified only on activation, a tampered file refused', async (env) => {
  const model = stepsModel([
    { name: 'activate_skill', arguments: { name: 'docs:pdf-tools' } },
    { name: 'read_skill_file', arguments: { skill: 'docs:pdf-tools', path: 'forms/w9.md' } },
    { name: 'activate_skill', arguments: { name: 'docs:release-notes' } },
    { name: 'bash', arguments: { command: 'ls' } },
  ]);
  const notices = [];
  const asked = [];
  const before = (await serverLog(env)).length;
  const agent = await createAgent({
    model,
    servers: { docs: httpTransport(env.extUrl) },
    serverOptions: { docs: { skills: true } },
    // The skill's `allowed-tools: Bash` must not lift this `ask`.
    ask: ['bash'],
    tools: [{ name: 'bash', description: 'Run a command', risk: 'execute', execute: async () => 'ran' }],
    onNotice: (n) => notices.push(n),
  });
  try {
    const [server] = agent.servers();
    assert.deepEqual(server.extensions, [SKILLS], JSON.stringify(server));
    const skills = agent.skills();
    assert.deepEqual(skills.map((s) => s.qualified), ['docs:pdf-tools', 'docs:release-notes']);
    assert.equal(skills[0].source, 'mcp:docs');
    assert.match(skills[0].description, /^\[MCP server docs\] Fill in PDF forms/);
    const catalog = agent.tools().find((t) => t.name === 'activate_skill');
    assert.ok(catalog, 'activate_skill is offered');
    assert.match(catalog.description, /docs:pdf-tools: \[MCP server docs\] Fill in PDF forms/);
    const connected = (await serverLog(env)).slice(before).map((r) => r.method);
    assert.ok(connected.includes('skills/list'), JSON.stringify(connected));
    assert.equal(connected.includes('resources/read'), false, 'nothing is read before activation');

    await agent.run('fill in my W-9', { onApproval: (request) => (asked.push(request.name), 'no') });
    const [activation, file, tampered, bash] = toolResults(model);
    assert.match(activation, /^<mcp_skill server="docs" name="docs:pdf-tools" uri="skill:\/\/pdf-tools\/SKILL.md">/);
    assert.match(activation, /# Filling PDF forms with care/);
    assert.match(activation, /allowed-tools \(Bash\) were not granted/);
    assert.match(activation, /Bundled files \(read with read_skill_file\): forms\/w9\.md/);
    assert.equal(file, 'The W-9 asks for a taxpayer identification number.\n');
    assert.match(tampered, /skill docs:release-notes of MCP server docs refused: skill:\/\/team\/release-notes\/SKILL\.md does not match its SHA-256 digest sha256:[0-9a-f]{64}; nothing of it entered the context/);
    assert.equal(tampered.includes('evil.example'), false, 'nothing of the tampered file reaches the model');
    assert.deepEqual(asked, ['bash'], 'a server skill\'s allowed-tools grant nothing: bash still asks');
    assert.match(bash, /declined|denied|not approved/i);
    const reads = (await serverLog(env)).slice(before).filter((r) => r.method === 'resources/read').map((r) => r.params.uri);
    assert.deepEqual(reads, ['skill://pdf-tools/SKILL.md', 'skill://pdf-tools/forms/w9.md', 'skill://team/release-notes/SKILL.md']);
    assert.deepEqual(notices, []);

    // Disconnected, its skills leave the catalog.
    agent.disconnect('docs');
    assert.deepEqual(agent.skills(), []);
  } finally {
    agent.close();
  }
});

test('Skills over MCP are off unless asked for: no skills/list, no skills', async (env) => {
  const before = (await serverLog(env)).length;
  const agent = await createAgent({ servers: { docs: httpTransport(env.extUrl) } });
  try {
    assert.deepEqual(agent.skills(), []);
    const methods = (await serverLog(env)).slice(before).map((r) => r.method);
    assert.equal(methods.includes('skills/list'), false, JSON.stringify(methods));
  } finally {
    agent.close();
  }
});
