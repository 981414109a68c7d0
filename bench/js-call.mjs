#!/usr/bin/env node
// The per-call cost of a tools/call from JavaScript, in ONE Node process: agentwire's npm
// package (`createAgent` + `stdioTransport` from `agentwire/node`, `agent.callTool`) beside the
// TypeScript SDK (`Client` + `StdioClientTransport`, `client.callTool`), both against the same
// server-everything, sequential `echo` calls, rounds alternating which client goes first.
// Run it with `bench/js-call` (which installs the pinned packages and checks pkg/).
//
//   node js-call.mjs --pkg DIR --server ENTRY [--rounds R] [--calls N] [--warmup N] [--baseline DIR]
//
// --baseline DIR adds a fourth client: another build of the package (say, before a change),
// measured in the same rounds, for a before/after in one process.
// A third client, the pipe floor, writes and reads the JSON-RPC lines by hand: what any client
// in this process pays for the child's pipes and the server's answer.
// Client CPU per call is process.cpuUsage() (user + system, this process only: the servers are
// child processes) over a round divided by its calls; round trip is each call's wall time.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { spawn } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';

function parseOptions(argv) {
  const o = { pkg: undefined, server: undefined, baseline: undefined, rounds: 20, calls: 500, warmup: 300 };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (value === undefined) throw new Error(`${flag} needs a value`);
    const count = () => {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 1) throw new Error(`${flag} ${value}: not a positive count`);
      return n;
    };
    switch (flag) {
      case '--pkg': o.pkg = value; break;
      case '--server': o.server = value; break;
      case '--baseline': o.baseline = value; break;
      case '--rounds': o.rounds = count(); break;
      case '--calls': o.calls = count(); break;
      case '--warmup': o.warmup = count(); break;
      default: throw new Error(`unknown flag ${flag}`);
    }
  }
  if (!o.pkg || !o.server) throw new Error('usage: js-call.mjs --pkg DIR --server ENTRY [--rounds R] [--calls N] [--warmup N]');
  return o;
}

const MESSAGE = 'hello';
const EXPECT = `Echo: ${MESSAGE}`;

/** The TypeScript SDK client: resolves to an async function doing one checked call. */
async function sdkClient(server) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [server, 'stdio'], stderr: 'pipe' });
  transport.stderr?.resume();
  const client = new Client({ name: 'bench-ts', version: '0.0.0' });
  await client.connect(transport);
  const call = async () => {
    const result = await client.callTool({ name: 'echo', arguments: { message: MESSAGE } });
    if (result.isError || result.content?.[0]?.text !== EXPECT) {
      throw new Error(`ts-sdk: unexpected result ${JSON.stringify(result)}`);
    }
  };
  return { name: 'ts-sdk', call, close: () => client.close() };
}

/** agentwire's npm package with its Node stdio transport; the same checks. */
async function agentwireClient(pkg, server, name = 'agentwire') {
  const aw = await import(pathToFileURL(join(pkg, 'node.js')).href);
  const agent = await aw.createAgent({ servers: { e: aw.stdioTransport(process.execPath, [server, 'stdio']) } });
  const call = async () => {
    const result = await agent.callTool('mcp__e__echo', { message: MESSAGE });
    if (result.isError || result.content?.[0]?.text !== EXPECT) {
      throw new Error(`agentwire: unexpected result ${JSON.stringify(result)}`);
    }
  };
  return { name, call, close: () => agent.close(), diagnostics: aw.diagnostics };
}

/**
 * The floor under both: no MCP client at all, just the JSON-RPC lines written to the child's
 * stdin and read back from its stdout by hand (the handshake, then `tools/call`), same checks.
 */
async function pipeFloor(server) {
  const child = spawn(process.execPath, [server, 'stdio'], { stdio: ['pipe', 'pipe', 'pipe'] });
  child.stderr.resume();
  child.stdout.setEncoding('utf8');
  let buffered = '';
  let id = 0;
  let waiting = null;
  child.stdout.on('data', (chunk) => {
    buffered += chunk;
    for (let at = buffered.indexOf('\n'); at !== -1; at = buffered.indexOf('\n')) {
      const message = JSON.parse(buffered.slice(0, at));
      buffered = buffered.slice(at + 1);
      if (message.id === id && waiting) {
        const resolve = waiting;
        waiting = null;
        resolve(message);
      }
    }
  });
  const request = (method, params) =>
    new Promise((resolve) => {
      waiting = resolve;
      id += 1;
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  const clientInfo = { name: 'bench-floor', version: '0.0.0' };
  await request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo });
  child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
  const call = async () => {
    const { result } = await request('tools/call', { name: 'echo', arguments: { message: MESSAGE } });
    if (result?.isError || result?.content?.[0]?.text !== EXPECT) {
      throw new Error(`pipe floor: unexpected result ${JSON.stringify(result)}`);
    }
  };
  return { name: 'floor', call, close: () => child.kill() };
}

/** `calls` sequential calls; client CPU (µs) and each call's round trip (µs). */
async function round(client, calls) {
  const rtt = new Float64Array(calls);
  const cpu = process.cpuUsage();
  for (let i = 0; i < calls; i += 1) {
    const t = process.hrtime.bigint();
    await client.call();
    rtt[i] = Number(process.hrtime.bigint() - t) / 1000;
  }
  const used = process.cpuUsage(cpu);
  return { cpu: (used.user + used.system) / calls, rtt };
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))];
const median = (values) => quantile([...values].sort((a, b) => a - b), 0.5);

async function main() {
  const o = parseOptions(process.argv.slice(2));
  const clients = [await sdkClient(o.server), await agentwireClient(o.pkg, o.server), await pipeFloor(o.server)];
  if (o.baseline) clients.push(await agentwireClient(o.baseline, o.server, 'baseline'));
  for (const c of clients) for (let i = 0; i < o.warmup; i += 1) await c.call();
  const results = new Map(clients.map((c) => [c.name, { cpu: [], rtt: [] }]));
  for (let r = 0; r < o.rounds; r += 1) {
    // Each client goes first as often as the others: the order turns by one every round.
    const order = clients.map((_, i) => clients[(i + r) % clients.length]);
    for (const c of order) {
      const { cpu, rtt } = await round(c, o.calls);
      results.get(c.name).cpu.push(cpu);
      results.get(c.name).rtt.push(...rtt);
    }
  }
  const leftOver = clients[1].diagnostics();
  for (const c of clients) await c.close();

  const summary = {};
  for (const [name, { cpu, rtt }] of results) {
    const sorted = rtt.sort((a, b) => a - b);
    summary[name] = { cpu: median(cpu), p50: quantile(sorted, 0.5), p90: quantile(sorted, 0.9) };
  }
  const aw = summary.agentwire;
  const ts = summary['ts-sdk'];
  const floor = summary.floor;
  const f = (x) => x.toFixed(1).padStart(10);
  console.log(`Node ${process.version}; ${o.rounds} rounds x ${o.calls} sequential echo calls per client, order rotating; warm-up ${o.warmup}`);
  console.log(`${''.padEnd(34)}${'agentwire'.padStart(10)}${'ts-sdk'.padStart(10)}${'pipe floor'.padStart(11)}  agentwire/ts`);
  const line = (label, key) =>
    console.log(`${label.padEnd(34)}${f(aw[key])}${f(ts[key])} ${f(floor[key])}  ${(aw[key] / ts[key]).toFixed(2)}x`);
  line('client CPU per call, median (µs)', 'cpu');
  line('round trip p50 (µs)', 'p50');
  line('round trip p90 (µs)', 'p90');
  if (summary.baseline) {
    const b = summary.baseline;
    console.log(`baseline (${o.baseline}): CPU ${b.cpu.toFixed(1)} µs (${(b.cpu / ts.cpu).toFixed(2)}x ts), ` +
      `round trip p50 ${b.p50.toFixed(1)} µs (${(b.p50 / ts.p50).toFixed(2)}x), p90 ${b.p90.toFixed(1)} µs (${(b.p90 / ts.p90).toFixed(2)}x)`);
  }
  console.log(`agentwire diagnostics after the calls: ${JSON.stringify(leftOver)}`);
  if (leftOver.timers || leftOver.modelCalls || leftOver.toolCalls) throw new Error('agentwire left work behind');
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(`js-call: ${error?.stack ?? error}`);
    process.exit(1);
  },
);
