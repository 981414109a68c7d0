// Costs of the npm package, measured from Node: loading, a mock agent run, and tools/call
// round trips through the in-process mock, a JS transport, and a real stdio server.
// Run with `pkg-tests/run --bench` (which installs the packed package first).
import { createAgent, init, mockGithub } from 'agentwire';
import { stdioTransport } from 'agentwire/node';

const PROMPT = '查看 vercel/ai 的 issues';
const ISSUE = { owner: 'vercel', repo: 'ai', issue_number: 6241 };

/** Runs `fn` `warmup` times, then `n` times; returns per-call statistics in microseconds. */
async function measure(n, fn, warmup = Math.min(50, n)) {
  for (let i = 0; i < warmup; i += 1) await fn();
  const samples = [];
  for (let i = 0; i < n; i += 1) {
    const t = process.hrtime.bigint();
    await fn();
    samples.push(Number(process.hrtime.bigint() - t) / 1000);
  }
  samples.sort((a, b) => a - b);
  const mean = samples.reduce((a, b) => a + b, 0) / n;
  return { n, mean, p50: samples[Math.floor(n / 2)], p95: samples[Math.floor(n * 0.95)] };
}

function row(name, s) {
  const f = (us) => (us >= 1000 ? `${(us / 1000).toFixed(2)} ms` : `${us.toFixed(1)} µs`);
  console.log(`${name.padEnd(52)} ${f(s.mean).padStart(10)} ${f(s.p50).padStart(10)} ${f(s.p95).padStart(10)}  (n=${s.n})`);
}

/** mockGithub() hidden behind a plain object: every message crosses the JS transport bridge. */
function jsWrappedMock() {
  const mock = mockGithub();
  return { send: (l) => mock.send(l), onMessage: (cb) => mock.onMessage(cb), onClose: (cb) => mock.onClose(cb), close: () => mock.close() };
}

let t = performance.now();
await init();
console.log(`wasm load + instantiate: ${(performance.now() - t).toFixed(1)} ms (Node ${process.version})`);
t = performance.now();
const agent = await createAgent();
console.log(`createAgent() with the mock GitHub server: ${(performance.now() - t).toFixed(1)} ms\n`);
console.log(`${'operation'.padEnd(52)} ${'mean'.padStart(10)} ${'p50'.padStart(10)} ${'p95'.padStart(10)}`);

row('mock agent run (2 model steps, 1 MCP tool call)', await measure(500, async () => {
  await agent.run(PROMPT);
  agent.clearHistory();
}));
row('createAgent() + run + close()', await measure(100, async () => {
  const a = await createAgent();
  await a.run(PROMPT);
  a.close();
}, 10));
row('tools/call, mock GitHub, createAgent default (get_issue)', await measure(2000, () => agent.callTool('mcp__github__get_issue', ISSUE)));

const viaJs = await createAgent({ servers: { github: jsWrappedMock() } });
row('tools/call via a JS transport (mock GitHub in JS)', await measure(2000, () => viaJs.callTool('mcp__github__get_issue', ISSUE)));
viaJs.close();

const echo = await createAgent({ servers: {} });
echo.registerTool({ name: 'echo', risk: 'read', execute: (args) => args.text });
row('JS tool call (callTool → execute → result)', await measure(2000, () => echo.callTool('echo', { text: 'hi' })));
echo.close();

if (process.env.AW_EVERYTHING) {
  const real = await createAgent({ servers: { e: stdioTransport(process.execPath, [process.env.AW_EVERYTHING, 'stdio']) } });
  row('tools/call via stdioTransport (server-everything echo)', await measure(500, () => real.callTool('mcp__e__echo', { message: 'hi' })));
  real.close();
}
agent.close();
