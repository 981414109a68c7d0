// Bad arguments, in every runtime: TypeErrors that name the call, the option and what was given.
import { Agent, createAgent, mockGithub, openaiCompatible } from 'agentwire';
import { assert, test } from '../harness.mjs';

const execute = () => 'ok';

/** `fn()` throws (or rejects with) a TypeError whose message matches `pattern`. */
const rejectsWith = (fn, pattern) => assert.throws(fn, TypeError, pattern);

test('createAgent: unknown options and wrong types', async () => {
  await rejectsWith(() => createAgent({ modle: {} }), /^createAgent: unknown option "modle" in options \(known: model, servers,/);
  await rejectsWith(() => createAgent('fast'), /options must be an object, got a string "fast"/);
  await rejectsWith(() => createAgent({ allow: 'get_weather' }), /"allow" must be an array of strings, got a string/);
  await rejectsWith(() => createAgent({ deny: [42] }), /"deny" must be an array of strings/);
  await rejectsWith(() => createAgent({ maxSteps: 0 }), /"maxSteps" must be a whole number of at least 1, got the number 0/);
  await rejectsWith(() => createAgent({ model: {} }), /"model" must be an object with a complete\(request\) method, got an object/);
  await rejectsWith(() => createAgent({ model: 'gpt-4o' }), /"model" must be an object with a complete/);
  await rejectsWith(() => createAgent({ servers: [] }), /"servers" must be an object mapping names to transports, got an array/);
  await rejectsWith(() => createAgent({ servers: { x: { send() {} } } }), /createAgent: servers\.x: transport\.onMessage must be a function, got undefined/);
  await rejectsWith(() => createAgent({ onAudit: true }), /"onAudit" must be a function, got a boolean/);
  await rejectsWith(() => createAgent({ tools: {} }), /"tools" must be an array of tool definitions, got an object/);
  await rejectsWith(() => createAgent({ tools: [{ name: 'x' }] }), /createAgent: tools\[0\]: "execute" must be a function, got undefined/);
  await rejectsWith(() => createAgent({ roots: '/home/project' }), /"roots" must be an array of file:\/\/ URIs, got a string/);
  await rejectsWith(() => createAgent({ roots: ['/home/project'] }), /roots\[0\] must be a file:\/\/ URI or \{uri, name\}, got a string "\/home\/project"/);
  await rejectsWith(() => createAgent({ roots: [{ uri: 'file:///a', name: 3 }] }), /roots\[0\]\.name must be a string, got the number 3/);
  await rejectsWith(() => createAgent({ sampling: true }), /"sampling" must be an array of strings, got a boolean/);
});

test('createAgent: an invalid permission pattern names the pattern and the problem', async () => {
  await rejectsWith(() => createAgent({ deny: ['mcp__github__*_issue'] }), /deny: invalid permission pattern "mcp__github__\*_issue": '\*' may only appear once, at the end/);
  await rejectsWith(() => createAgent({ allow: ['my.server'] }), /allow: invalid permission pattern "my\.server": character "\." cannot occur/);
  await rejectsWith(() => createAgent({ ask: [''] }), /ask: invalid permission pattern "": the pattern is empty/);
});

test('registerTool: missing name, bad schema, non-function execute, unknown field, bad risk', async () => {
  const agent = await createAgent({ servers: {} });
  try {
    const cases = [
      [{ execute }, /^agent\.registerTool: "name" is required \(a non-empty string\)$/],
      [{ name: '', execute }, /"name" must be a non-empty string, got a string ""/],
      [{ name: 7, execute }, /"name" must be a non-empty string, got the number 7/],
      [{ name: 't', inputSchema: [], execute }, /"inputSchema" must be a JSON Schema object, got an array/],
      [{ name: 't', inputSchema: 'object', execute }, /"inputSchema" must be a JSON Schema object, got a string "object"/],
      [{ name: 't', inputSchema: null, execute }, /"inputSchema" must be a JSON Schema object, got null/],
      [{ name: 't', execute: 'return 1' }, /"execute" must be a function, got a string "return 1"/],
      [{ name: 't' }, /"execute" must be a function, got undefined/],
      [{ name: 't', execute, color: 'red' }, /unknown option "color" in the tool \(known: name, description, inputSchema, risk, execute/],
      [{ name: 't', execute, risk: 'dangerous' }, /"risk" must be one of read, network, write, execute, got a string "dangerous"/],
      [{ name: 't', execute, timeoutMs: -5 }, /"timeoutMs" must be a whole number of at least 1/],
      [null, /the tool must be an object \{ name, description, inputSchema, risk, execute \}, got null/],
    ];
    for (const [tool, pattern] of cases) {
      await assert.throws(() => agent.registerTool(tool), TypeError, pattern);
    }
    // The core's own checks: the name's characters, and a name already taken.
    await assert.throws(() => agent.registerTool({ name: 'has space', execute }), Error, /agent\.registerTool: invalid tool name "has space"/);
    agent.registerTool({ name: 'twice', execute });
    await assert.throws(() => agent.registerTool({ name: 'twice', execute }), Error, /tool name "twice" is already taken by built-in tool "twice"/);
    assert.deepEqual(agent.tools().map((t) => t.name), ['twice']);
  } finally {
    agent.close();
  }
});

test('connect, run, callTool: bad arguments', async () => {
  const agent = await createAgent({ servers: {} });
  try {
    await rejectsWith(() => agent.connect('', mockGithub()), /agent\.connect: "name" must be a non-empty string/);
    await rejectsWith(() => agent.connect('x'), /agent\.connect: the transport must be an object with send\(line\) and onMessage\(callback\), got undefined/);
    await rejectsWith(() => agent.connect('x', { send: 1, onMessage() {} }), /transport\.send must be a function, got the number 1/);
    await rejectsWith(() => agent.connect('x', { send() {}, onMessage() {}, close: 'now' }), /transport\.close must be a function when given/);
    await rejectsWith(() => agent.connect('x', mockGithub(), { timeout: 5 }), /agent\.connect: unknown option "timeout" in options \(known: timeoutMs, toolTimeoutMs, maxOutputChars, sampling, defer, alwaysLoad, protocol, tasks, skills\)/);
    await rejectsWith(() => agent.connect('x', mockGithub(), { tasks: 'yes' }), /agent\.connect: "tasks" must be a boolean, got/);
    await rejectsWith(() => agent.connect('x', mockGithub(), { skills: 1 }), /agent\.connect: "skills" must be a boolean, got/);
    await rejectsWith(() => createAgent({ servers: {}, serverOptions: { jobs: { tasks: true } } }), /createAgent: "serverOptions" names "jobs", which is not one of "servers"/);
    await rejectsWith(() => createAgent({ servers: { jobs: mockGithub() }, serverOptions: { jobs: { task: true } } }), /createAgent: serverOptions\.jobs: unknown option "task"/);
    await rejectsWith(() => agent.connect('x', mockGithub(), { sampling: 'yes' }), /agent\.connect: "sampling" must be a boolean, got a string "yes"/);
    await rejectsWith(() => agent.run(42), /agent\.run: the prompt must be a string, got the number 42/);
    await rejectsWith(() => agent.run('hi', { onEvent: 'log' }), /agent\.run: "onEvent" must be a function, got a string/);
    await rejectsWith(() => agent.run('hi', { onApprove() {} }), /agent\.run: unknown option "onApprove" in options \(known: onEvent, onApproval, signal\)/);
    await rejectsWith(() => agent.callTool('x', 'args'), /agent\.callTool: the arguments must be an object, got a string "args"/);
    await rejectsWith(() => agent.callTool('x', [1]), /the arguments must be an object, got an array/);
    await rejectsWith(() => agent.callTool(), /agent\.callTool: "name" is required/);
    await rejectsWith(() => agent.setModel({ complete: 1 }), /agent\.setModel: "model" must be an object with a complete/);
  } finally {
    agent.close();
  }
});

test('a closed agent says so', async () => {
  const agent = await createAgent({ servers: {} });
  agent.close();
  agent.close();
  assert.equal(agent.closed, true);
  await assert.throws(() => agent.run('hi'), Error, /^agent\.run: the agent is closed$/);
  await assert.throws(() => agent.tools(), Error, /agent\.tools: the agent is closed/);
  await assert.throws(() => agent.connect('github', mockGithub()), Error, /agent\.connect: the agent is closed/);
});

test('openaiCompatible: bad arguments', async () => {
  await rejectsWith(() => openaiCompatible(), /openaiCompatible: options \{ baseURL, model \} are required/);
  await rejectsWith(() => openaiCompatible({ model: 'm' }), /openaiCompatible: "baseURL" is required/);
  await rejectsWith(() => openaiCompatible({ baseURL: 'http://x', model: 'm', api_key: 'k' }), /unknown option "api_key"/);
  await rejectsWith(() => openaiCompatible({ baseURL: 'http://x', model: 'm', stream: 'yes' }), /"stream" must be a boolean/);
});

test('an Agent cannot be constructed directly', async () => {
  await assert.throws(() => new Agent({}), Error, /use createAgent\(options\) to make an Agent/);
});
